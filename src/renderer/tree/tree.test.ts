import { describe, expect, it } from 'vitest';
import type { TreeEntry } from '../../shared/contract';
import { flattenTree, parentOf } from './flatten';
import { changedAncestors } from './gitDecorations';
import { sortEntries } from './sortEntries';
import { treeKeyAction } from './treeKeys';
import { visibleRange } from './useVirtualRows';

const dir = (path: string): TreeEntry => ({ path, name: path.split('/').pop()!, kind: 'dir' });
const file = (path: string): TreeEntry => ({ path, name: path.split('/').pop()!, kind: 'file' });

describe('sortEntries', () => {
  it('puts folders first, then names in natural, case-blind order', () => {
    const sorted = sortEntries([file('b.ts'), file('a10.ts'), dir('src'), file('A2.ts'), dir('Docs')]);
    expect(sorted.map((e) => e.name)).toEqual(['Docs', 'src', 'A2.ts', 'a10.ts', 'b.ts']);
  });
});

describe('flattenTree', () => {
  const listings = {
    '': [dir('src'), dir('test'), file('README.md')],
    src: [dir('src/app'), file('src/main.ts')],
    'src/app': [file('src/app/App.tsx')],
    test: [file('test/a.test.ts')],
  };

  it('lists only rows under expanded folders, depth-first', () => {
    const rows = flattenTree(listings, { src: true, 'src/app': true });
    expect(rows.map((r) => `${r.depth}:${r.path}`)).toEqual(['0:src', '1:src/app', '2:src/app/App.tsx', '1:src/main.ts', '0:test', '0:README.md']);
    expect(rows.find((r) => r.path === 'src/app')).toMatchObject({ expanded: true, parent: 'src' });
    expect(rows.find((r) => r.path === 'test')).toMatchObject({ expanded: false });
  });

  it('hides the children of a collapsed folder even when its child folder is expanded', () => {
    const rows = flattenTree(listings, { 'src/app': true });
    expect(rows.map((r) => r.path)).toEqual(['src', 'test', 'README.md']);
  });

  it('shows an expanded folder whose listing has not arrived yet without children', () => {
    const rows = flattenTree({ '': [dir('pending')] }, { pending: true });
    expect(rows).toHaveLength(1);
    expect(rows[0].expanded).toBe(true);
  });

  it('flattens 10,000 files quickly', () => {
    const many = Array.from({ length: 10_000 }, (_, i) => file(`big/f${i}.txt`));
    const t0 = performance.now();
    const rows = flattenTree({ '': [dir('big')], big: many }, { big: true });
    expect(rows).toHaveLength(10_001);
    expect(performance.now() - t0).toBeLessThan(200);
  });

  it('finds parents', () => {
    expect(parentOf('a/b/c.ts')).toBe('a/b');
    expect(parentOf('c.ts')).toBe('');
  });
});

describe('changedAncestors', () => {
  it('marks every folder above a change with the most important badge beneath it', () => {
    const dirs = changedAncestors({ 'src/app/a.ts': 'M', 'src/b.ts': '?', 'src/app/x/c.ts': 'U', 'docs/ignored.log': '!' });
    expect(dirs).toEqual({ src: 'U', 'src/app': 'U', 'src/app/x': 'U' });
  });

  it('lets a weaker change not override a stronger one', () => {
    expect(changedAncestors({ 'a/b.ts': 'D', 'a/c.ts': 'A' })).toEqual({ a: 'D' });
  });
});

describe('treeKeyAction', () => {
  const rows = flattenTree(
    { '': [dir('src'), file('z.md')], src: [file('src/a.ts'), file('src/b.ts')] },
    { src: true },
  );

  it('moves with arrows and clamps at the ends', () => {
    expect(treeKeyAction(rows, 'src', 'ArrowDown', 10)).toEqual({ type: 'move', path: 'src/a.ts' });
    expect(treeKeyAction(rows, 'src', 'ArrowUp', 10)).toEqual({ type: 'move', path: 'src' });
    expect(treeKeyAction(rows, 'z.md', 'End', 10)).toEqual({ type: 'move', path: 'z.md' });
    expect(treeKeyAction(rows, null, 'ArrowDown', 10)).toEqual({ type: 'move', path: 'src' });
  });

  it('steps into an open folder on Right and out to the parent on Left', () => {
    expect(treeKeyAction(rows, 'src', 'ArrowRight', 10)).toEqual({ type: 'move', path: 'src/a.ts' });
    expect(treeKeyAction(rows, 'src/b.ts', 'ArrowLeft', 10)).toEqual({ type: 'move', path: 'src' });
    expect(treeKeyAction(rows, 'src', 'ArrowLeft', 10)).toEqual({ type: 'collapse', path: 'src' });
  });

  it('expands a closed folder on Right and activates on Enter', () => {
    const closed = flattenTree({ '': [dir('src')] }, {});
    expect(treeKeyAction(closed, 'src', 'ArrowRight', 10)).toEqual({ type: 'expand', path: 'src' });
    expect(treeKeyAction(rows, 'src/a.ts', 'Enter', 10)).toEqual({ type: 'activate', path: 'src/a.ts', kind: 'file' });
  });
});

describe('visibleRange', () => {
  it('renders a screenful plus overscan, never past the list', () => {
    expect(visibleRange(0, 220, 22, 10_000)).toEqual({ start: 0, end: 20 });
    expect(visibleRange(22_000, 220, 22, 10_000)).toEqual({ start: 990, end: 1020 });
    expect(visibleRange(219_780, 220, 22, 10_000)).toEqual({ start: 9980, end: 10_000 });
  });
});
