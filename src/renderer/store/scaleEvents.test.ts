// Big folders seen by the page: "many" events re-read what it shows; the first listing comes first.
import { describe, expect, it } from 'vitest';
import type { WorkspaceInfo } from '../../shared/contract';
import { connectedStore } from './fakeHost.testkit';

const ws: WorkspaceInfo = { root: '/w', name: 'w', isGitRepo: false };
const tick = () => new Promise((r) => setTimeout(r, 0));

describe('burst events', () => {
  it('tree.changed with all re-lists every loaded folder; file.changed truncated reloads the open file', async () => {
    const listed: string[] = [];
    let reads = 0;
    const { store, emit } = await connectedStore(ws, {
      'tree.list': (p) => {
        const dir = (p as { dir: string }).dir;
        listed.push(dir);
        return { dir, entries: dir === '' ? [{ path: 'src', name: 'src', kind: 'dir' }] : [{ path: 'src/a.ts', name: 'a.ts', kind: 'file' }] };
      },
      'file.read': () => ({ path: 'src/a.ts', content: `v${++reads}`, size: 2, binary: false, tooLarge: false, language: 'typescript' }),
    });
    store.getState().expandDir('src');
    await store.getState().openFilePath('src/a.ts');
    await tick();
    emit('file.changed', { paths: [], truncated: true });
    await tick();
    expect(store.getState().openFile?.file?.content).toBe('v2');
    listed.length = 0;
    emit('tree.changed', { dirs: [], all: true });
    await tick();
    expect(listed.sort()).toEqual(['', 'src']);
  });
});

describe('opening a folder', () => {
  it('asks for git status only once the root listing is in', async () => {
    let answer: (v: unknown) => void = () => undefined;
    const order: string[] = [];
    await connectedStore({ ...ws, isGitRepo: true }, {
      'tree.list': () => {
        order.push('tree.list');
        return new Promise((r) => (answer = r));
      },
      'tree.gitStatus': () => {
        order.push('tree.gitStatus');
        return {};
      },
    });
    await tick();
    expect(order).toEqual(['tree.list']);
    answer({ dir: '', entries: [] });
    await tick();
    expect(order).toEqual(['tree.list', 'tree.gitStatus']);
  });
});
