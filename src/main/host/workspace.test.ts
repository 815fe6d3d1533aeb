// The open folder's reaction to bursts on disk (a checkout, an install): events that say "many"
// instead of naming thousands of paths, and one index refresh at a time however many batches.
import { execFileSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HostEvents } from '../../shared/contract';
import { testServices } from '../../../test/support/services';
import { tempDir, until, writeTree } from '../../../test/support/tmp';
import type { WorkspaceServices } from '../workspace/compose';
import { Workspace } from './workspace';

let dir: string;
let cleanup: () => Promise<void>;
let services: WorkspaceServices;
let ws: Workspace;
let events: { ch: keyof HostEvents; p: unknown }[];

beforeEach(async () => {
  ({ dir, cleanup } = await tempDir('loupe-ws-burst-'));
  await writeTree(dir, { 'a.txt': 'a\n' });
  services = testServices(dir, { configDir: path.join(dir, '..', `${path.basename(dir)}-user`) });
  events = [];
  ws = await Workspace.open(dir, (ch, p) => void events.push({ ch, p }), () => services);
  await ws.list('');
  await until(() => ws.index.isReady);
});
afterEach(async () => {
  await ws.dispose();
  await services.dispose();
  await cleanup();
});

const of = <E extends keyof HostEvents>(ch: E) => events.filter((e) => e.ch === ch).map((e) => e.p as HostEvents[E]);

describe('a burst of changes', () => {
  it('over 1,000 paths at once are told as "many": file.changed truncated, tree.changed all', async () => {
    // Written while the watcher is subscribing would be missed: wait for it to see one file.
    await writeTree(dir, { 'probe.txt': 'x' });
    await until(() => of('file.changed').some((e) => e.paths.includes('probe.txt')), 10_000);
    // Made aside, then copied in by one fast `cp -r`, as a checkout lands: one or two batches.
    const files: Record<string, string> = {};
    for (let i = 0; i < 1500; i++) files[`d${i}/f.txt`] = `${i}\n`;
    const aside = `${dir}-aside`;
    await writeTree(aside, files);
    execFileSync('cp', ['-r', `${aside}/.`, dir]);
    await rm(aside, { recursive: true, force: true });
    await until(async () => (await ws.list('')).entries.length === 1502, 15_000);
    expect(of('tree.changed').some((e) => e.all === true)).toBe(true);
    for (const e of of('file.changed')) expect(e.paths.length).toBeLessThanOrEqual(1000);
    expect(of('file.changed').some((e) => e.truncated === true)).toBe(true);
    for (const e of of('tree.changed')) expect(e.dirs.length).toBeLessThanOrEqual(1000);
  });

  it('batches arriving during an index refresh share the next one: never two at once', async () => {
    const refresh = ws.index.refresh.bind(ws.index);
    let running = 0;
    let most = 0;
    let calls = 0;
    // A slow refresh, as at 100,000 files, so batches pile up behind it.
    ws.index.refresh = async (signal) => {
      calls++;
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, 300));
      try {
        return await refresh(signal);
      } finally {
        running--;
      }
    };
    for (let wave = 0; wave < 8; wave++) {
      await writeTree(dir, { [`w${wave}.txt`]: 'x' });
      await new Promise((r) => setTimeout(r, 130));
    }
    await until(async () => (await ws.list('')).entries.some((e) => e.name === 'w7.txt'), 15_000);
    const batches = of('file.changed').length;
    expect(most).toBe(1);
    expect(calls).toBeLessThan(batches);
  });
});

/**
 * A folder of its own, opened by a Workspace that has not listed anything yet. `adapt` may wrap
 * the services before the folder opens; everything is disposed after `body`.
 */
async function freshFolder(
  files: Record<string, string>,
  body: (opened: Workspace, told: { ch: keyof HostEvents; p: unknown }[], configs: string[]) => Promise<void>,
  adapt: (s: WorkspaceServices) => void = () => undefined,
): Promise<void> {
  const other = await tempDir('loupe-ws-first-');
  await writeTree(other.dir, files);
  const mine = testServices(other.dir, { configDir: `${other.dir}-user` });
  adapt(mine);
  const told: { ch: keyof HostEvents; p: unknown }[] = [];
  const configs: string[] = [];
  const opened = await Workspace.open(other.dir, (ch, p) => void told.push({ ch, p }), () => mine, (root) => void configs.push(root));
  try {
    await body(opened, told, configs);
  } finally {
    await opened.dispose();
    await mine.dispose();
    await other.cleanup();
  }
}

describe('the first screen', () => {
  it('the background index waits for the first listing, then starts', async () => {
    await freshFolder({ 'a.txt': '', 'src/b.ts': '' }, async (opened) => {
      await new Promise((r) => setTimeout(r, 200));
      expect(opened.index.isReady).toBe(false);
      expect((await opened.list('')).entries.map((e) => e.name)).toEqual(['src', 'a.txt']);
      await until(() => opened.index.isReady, 5000);
    });
  });

  it('the watcher subscribes at the first listing, and the index walks once it is subscribed', async () => {
    const steps: string[] = [];
    const record = (mine: WorkspaceServices) => {
      const watch = mine.watch.bind(mine);
      mine.watch = (...args) => {
        const w = watch(...args);
        const start = w.start.bind(w);
        w.start = async () => {
          steps.push('subscribe');
          await start();
          steps.push('subscribed');
        };
        return w;
      };
      const walk = mine.index.start.bind(mine.index);
      mine.index.start = () => (steps.push('walk'), walk());
    };
    await freshFolder(
      { 'a.txt': '' },
      async (opened) => {
        await new Promise((r) => setTimeout(r, 200));
        // Opening a 100,000-file folder subscribed on every core while the page booted.
        expect(steps).toEqual([]);
        await opened.list('');
        await until(() => opened.index.isReady, 5000);
        expect(steps).toEqual(['subscribe', 'subscribed', 'walk']);
      },
      record,
    );
  });

  it('a config or log written before the subscription is told once it is there', async () => {
    await freshFolder({ 'a.txt': '' }, async (opened, told, configs) => {
      // Another process writes both while nothing watches yet (as `loupe mcp` may).
      await writeTree(opened.info.root, { '.loupe/config.json': '{"permissions":[]}\n', '.loupe/modifications.jsonl': '' });
      await opened.list('');
      await until(() => opened.index.isReady, 5000);
      expect(configs).toEqual([opened.info.root]);
      expect(told.filter((e) => e.ch === 'modlog.changed')).toEqual([{ ch: 'modlog.changed', p: { count: 0 } }]);
    });
  });
});

describe('.loupe/ and git', () => {
  it('is excluded the first time anything is written there, not only by a modification', async () => {
    const repo = await tempDir('loupe-ws-exclude-');
    const gitRun = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@x', '-c', 'user.name=T', ...args], { cwd: repo.dir });
    await writeTree(repo.dir, { 'a.txt': 'a\n' });
    gitRun('init', '-q');
    gitRun('add', '.');
    gitRun('commit', '-qm', 'init');
    const own = testServices(repo.dir, { configDir: `${repo.dir}-user` });
    const seen: { ch: keyof HostEvents; p: unknown }[] = [];
    const opened = await Workspace.open(repo.dir, (ch, p) => void seen.push({ ch, p }), () => own);
    try {
      await opened.list('');
      await until(() => opened.index.isReady);
      // A chat saved before any edit: the first thing Loupe writes into .loupe/.
      await writeTree(repo.dir, { '.loupe/sessions/ses-1.json': '{}\n' });
      await until(() => gitRun('status', '--porcelain').toString() === '', 10_000);
      expect(gitRun('check-ignore', '.loupe/sessions/ses-1.json').toString().trim()).toBe('.loupe/sessions/ses-1.json');
    } finally {
      await opened.dispose();
      await own.dispose();
      await repo.cleanup();
    }
  });
});
