// A folder the file watcher cannot watch (10,000 levels deep: inotify refuses the path) must
// not stop `loupe serve`: it starts, answers, and says that live updates are off.
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import type { WsServerMessage } from '../../src/shared/contract';
import { until } from '../support/tmp';
import { healthyClient, request, serveFixture, type ServeFixture } from '../support/serveFixture';

const LEVELS = 10_000;

/** mkdir + chdir one level at a time: no path ever given to the kernel is long. */
function deepFolder(parent: string, name = 'deep'): void {
  execFileSync(process.execPath, ['-e', `const fs=require('fs');process.chdir(${JSON.stringify(parent)});fs.mkdirSync(${JSON.stringify(name)});process.chdir(${JSON.stringify(name)});fs.writeFileSync('top.txt','x');for(let i=0;i<${LEVELS};i++){fs.mkdirSync('d');process.chdir('d')}fs.writeFileSync('bottom.txt','x')`]);
}

let fx: ServeFixture | undefined;
afterEach(async () => {
  // GNU rm walks with openat, so it can remove what a path-based rm could not even name.
  if (fx) execFileSync('rm', ['-rf', fx.dir]);
  await fx?.close();
  fx = undefined;
});

describe('loupe serve on a folder the watcher cannot watch', () => {
  it('starts, answers, and reports the watcher failure as a notice', async () => {
    fx = await serveFixture({ 'README.md': '# deep\n' }, {}, async (project) => deepFolder(project));
    // The folder opens before the watcher has subscribed, so its failure may come a moment later.
    const info = await until(() => (fx!.host.current?.notices?.length ? fx!.host.current : null), 15_000);
    expect(info.notices?.join('\n')).toMatch(/live updates/i);

    const ws = await healthyClient(fx.srv);
    const current = await request(ws, 'workspace.current', null);
    expect(current).toMatchObject({ ok: true, r: { notices: [expect.stringMatching(/live updates/i)] } });
    const root = await request(ws, 'tree.list', { dir: '' });
    expect(root).toMatchObject({ ok: true });
    expect((root as Extract<WsServerMessage, { ok: true }>).r).toMatchObject({ entries: expect.arrayContaining([expect.objectContaining({ path: 'deep' })]) });
    expect(await request(ws, 'file.read', { path: 'README.md' })).toMatchObject({ ok: true, r: { content: '# deep\n' } });
    expect(await request(ws, 'tree.list', { dir: 'deep' })).toMatchObject({ ok: true, r: { entries: expect.arrayContaining([expect.objectContaining({ path: 'deep/top.txt' })]) } });
    expect(await request(ws, 'tree.list', { dir: 'deep/d/d/d' })).toMatchObject({ ok: true });
    ws.close();
  }, 60_000);
});
