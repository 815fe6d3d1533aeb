// The open folder's reaction to changes on disk: a few paths patch the index and ask git about
// themselves; bursts (a checkout, an install) walk once and are told as "many" instead of naming
// thousands of paths; one index update at a time however many batches. The watcher is scripted
// where the test is about what a batch does, so no batch depends on how fast the disk was.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HostEvents } from '../../shared/contract';
import { testServices } from '../../../test/support/services';
import { git, tempDir, until, writeTree } from '../../../test/support/tmp';
import type { WorkspaceServices } from '../workspace/compose';
import type { GitBadges } from '../services/git/gitBadges';
import type { WorkspaceWatcher } from '../services/workspace/watcher';
import { DRAW_FIRST_LISTING_MS, INDEX_DELAY_MS, Workspace } from './workspace';

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
  it('batches arriving during an index update share the next one: never two at once', async () => {
    // The first update is held until the other batches are in, as a walk of 100,000 files is.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let running = 0;
    let most = 0;
    const seen: string[][] = [];
    const patch = ws.index.patch.bind(ws.index);
    ws.index.patch = async (paths, signal) => {
      seen.push(paths);
      most = Math.max(most, ++running);
      try {
        if (seen.length === 1) await held;
        return await patch(paths, signal);
      } finally {
        running--;
      }
    };
    await writeTree(dir, { 'w0.txt': 'x' });
    await until(() => seen.length === 1, 10_000);
    for (let wave = 1; wave < 8; wave++) {
      await writeTree(dir, { [`w${wave}.txt`]: 'x' });
      await until(() => of('file.changed').some((e) => e.paths.includes(`w${wave}.txt`)), 10_000);
    }
    release();
    await until(async () => (await ws.list('')).entries.some((e) => e.name === 'w7.txt'), 15_000);
    expect(most).toBe(1);
    expect(seen).toHaveLength(2);
    expect([...seen[1]].sort()).toEqual(['w1.txt', 'w2.txt', 'w3.txt', 'w4.txt', 'w5.txt', 'w6.txt', 'w7.txt']);
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
    const t0 = performance.now();
    await freshFolder({ 'a.txt': '', 'src/b.ts': '' }, async (opened) => {
      await new Promise((r) => setTimeout(r, 200));
      // Unless the machine was so busy that the fallback delay has passed meanwhile.
      const ready = opened.index.isReady;
      if (performance.now() - t0 < INDEX_DELAY_MS) expect(ready).toBe(false);
      expect((await opened.list('')).entries.map((e) => e.name)).toEqual(['src', 'a.txt']);
      await until(() => opened.index.isReady, 30_000);
    });
  });

  it('firstScreen settles once the first listing is answered: what the first screen does not need waits for it', async () => {
    await freshFolder({ 'a.txt': '' }, async (opened) => {
      let shown = false;
      void opened.firstScreen.then(() => (shown = true));
      // Nothing has listed yet, and no task has run since the opening (so not the fallback either).
      await Promise.resolve();
      expect(shown).toBe(false);
      const listing = await opened.list('');
      expect(listing.entries.map((e) => e.name)).toEqual(['a.txt']);
      await opened.firstScreen;
      expect(shown).toBe(true);
    });
  });

  it('the watcher subscribes once the first listing is drawn, and the index walks once it is subscribed', async () => {
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
    const t0 = performance.now();
    await freshFolder(
      { 'a.txt': '' },
      async (opened) => {
        await new Promise((r) => setTimeout(r, 200));
        // Opening a 100,000-file folder subscribed on every core while the page booted
        // (unless the machine was so busy that the fallback delay has passed meanwhile).
        const before = [...steps];
        if (performance.now() - t0 < INDEX_DELAY_MS) expect(before).toEqual([]);
        await opened.list('');
        // The page draws the listing first (unless the machine was so busy that the wait passed).
        const listed = performance.now();
        await new Promise((r) => setTimeout(r, 50));
        const drawing = [...steps];
        if (performance.now() - listed < DRAW_FIRST_LISTING_MS) expect(drawing).toEqual([]);
        await until(() => opened.index.isReady, 30_000);
        expect(steps).toEqual(['subscribe', 'subscribed', 'walk']);
      },
      record,
    );
  });

  it('the root read ahead while a page loads answers the page and its first tree.list, read once', async () => {
    await freshFolder({ 'a.txt': '', 'src/b.ts': '' }, async (opened) => {
      let reads = 0;
      const list = opened.index.list.bind(opened.index);
      opened.index.list = (dir) => (reads++, list(dir));
      opened.readAhead();
      const served = await opened.firstListing();
      const asked = await opened.list('');
      expect(reads).toBe(1);
      expect(asked).toEqual(served);
      expect(asked.entries.map((e) => e.name).sort()).toEqual(['a.txt', 'src']);
      // The next one is read again.
      await opened.list('');
      expect(reads).toBe(2);
    });
  });

  it('a listing read ahead is not answered once the index is complete: the index is newer', async () => {
    await freshFolder({ 'a.txt': '' }, async (opened) => {
      opened.readAhead();
      await opened.firstListing();
      await writeTree(opened.info.root, { 'c.txt': '' });
      await opened.index.start();
      expect((await opened.list('')).entries.map((e) => e.name).sort()).toEqual(['a.txt', 'c.txt']);
    });
  });

  it('a config or log written before the subscription is told once it is there', async () => {
    await freshFolder({ 'a.txt': '' }, async (opened, told, configs) => {
      // Another process writes both while nothing watches yet (as `loupe mcp` may).
      await writeTree(opened.info.root, { '.loupe/config.json': '{"permissions":[]}\n', '.loupe/modifications.jsonl': '' });
      await opened.list('');
      await until(() => opened.index.isReady, 30_000);
      expect(configs).toEqual([opened.info.root]);
      expect(told.filter((e) => e.ch === 'modlog.changed')).toEqual([{ ch: 'modlog.changed', p: { count: 0 } }]);
    });
  });
});

/** A watcher that tells exactly the batches a test gives it, when it gives them. */
function scripted(): { adapt: (s: WorkspaceServices) => void; batch: (paths: string[]) => void; fail: (detail: string) => void } {
  const ctl = {
    batch: (_paths: string[]): void => undefined,
    fail: (_detail: string): void => undefined,
    adapt: (mine: WorkspaceServices) => {
      mine.watch = (onBatch, onError) => {
        ctl.batch = (paths) => onBatch({ paths });
        ctl.fail = onError;
        return { start: async () => undefined, stop: async () => undefined } as unknown as WorkspaceWatcher;
      };
    },
  };
  return ctl;
}

/** Counts the index's whole walks (refresh) and patches. */
function counting(mine: WorkspaceServices): { walks: number; patches: number } {
  const n = { walks: 0, patches: 0 };
  const refresh = mine.index.refresh.bind(mine.index);
  const patch = mine.index.patch.bind(mine.index);
  mine.index.refresh = (signal) => (n.walks++, refresh(signal));
  mine.index.patch = (paths, signal) => (n.patches++, patch(paths, signal));
  return n;
}

const names = async (opened: Workspace, dir = '') => (await opened.list(dir)).entries.map((e) => e.name);

describe('watcher batches update the index and the badges', () => {
  it('a few paths patch the index: no walk of the tree', async () => {
    const w = scripted();
    let n!: { walks: number; patches: number };
    await freshFolder(
      { 'a.txt': '', 'src/b.ts': '' },
      async (opened, told) => {
        await opened.list('');
        await until(() => opened.index.isReady);
        await writeTree(opened.info.root, { 'src/c.ts': '', 'new/d.ts': '' });
        w.batch(['src/c.ts', 'new']);
        await until(async () => (await names(opened, 'src')).includes('c.ts') && (await names(opened)).includes('new'));
        expect(await names(opened, 'new')).toEqual(['d.ts']);
        expect(n).toEqual({ walks: 0, patches: 1 });
        const dirs = told.filter((e) => e.ch === 'tree.changed').flatMap((e) => (e.p as HostEvents['tree.changed']).dirs);
        expect(dirs).toEqual(expect.arrayContaining(['', 'src', 'new']));
      },
      (mine) => (w.adapt(mine), (n = counting(mine))),
    );
  });

  it('over 1,000 paths in one batch walk the tree once and are told as "many": file.changed truncated, tree.changed all', async () => {
    const w = scripted();
    let n!: { walks: number; patches: number };
    await freshFolder(
      { 'a.txt': '' },
      async (opened, told) => {
        await opened.list('');
        await until(() => opened.index.isReady);
        const files: Record<string, string> = {};
        for (let i = 0; i < 1500; i++) files[`d${i}/f.txt`] = `${i}\n`;
        await writeTree(opened.info.root, files);
        w.batch(Object.keys(files));
        await until(async () => (await names(opened)).length === 1501);
        expect(n.walks).toBe(1);
        expect(told.some((e) => e.ch === 'tree.changed' && (e.p as HostEvents['tree.changed']).all === true)).toBe(true);
        const changed = told.filter((e) => e.ch === 'file.changed').map((e) => e.p as HostEvents['file.changed']);
        expect(changed).toEqual([{ paths: [], truncated: true }]);
      },
      (mine) => (w.adapt(mine), (n = counting(mine))),
    );
  });

  it('rules in .git/info/exclude, and a watcher that failed, walk the tree', async () => {
    const w = scripted();
    let n!: { walks: number; patches: number };
    await freshFolder(
      { 'a.txt': '', 'b.log': '' },
      async (opened) => {
        await opened.list('');
        await until(() => opened.index.isReady);
        await writeTree(opened.info.root, { '.git/info/exclude': '*.log\n' });
        w.batch(['.git/info/exclude']);
        await until(async () => !(await names(opened)).includes('b.log'));
        expect(n.walks).toBe(1);
        // Made while nothing reported it: only the walk after the failure finds it.
        await writeTree(opened.info.root, { 'unseen.txt': '' });
        w.fail('inotify_add_watch failed: No space left on device');
        await until(async () => (await names(opened)).includes('unseen.txt'));
        expect(n.walks).toBe(2);
        expect(n.patches).toBe(0);
      },
      (mine) => (git(mine.root, 'init', '-q'), w.adapt(mine), (n = counting(mine))),
    );
  });

  it('badges follow a tree batch by its paths, and a change in .git by the whole status', async () => {
    const w = scripted();
    await freshFolder(
      { 'a.txt': 'a\n', 'b.txt': 'b\n' },
      async (opened, told) => {
        const status = () => told.filter((e) => e.ch === 'tree.gitStatus').map((e) => (e.p as HostEvents['tree.gitStatus']).status).at(-1);
        const badges = (opened as unknown as { badges: GitBadges }).badges;
        await opened.gitStatus();
        const runs = badges.runs;
        await writeTree(opened.info.root, { 'a.txt': 'changed\n', 'c.txt': 'new\n' });
        w.batch(['a.txt', 'c.txt']);
        await until(() => status()?.['c.txt'] === '?' && status()?.['a.txt'] === 'M');
        expect(badges.pathRuns).toBe(1);
        expect(badges.runs).toBe(runs);
        // Staged from outside: only .git changed, and only the whole status sees what.
        git(opened.info.root, 'add', 'c.txt');
        w.batch(['.git/index']);
        await until(() => status()?.['c.txt'] === 'A');
        expect(badges.runs).toBe(runs + 1);
      },
      (mine) => {
        git(mine.root, 'init', '-q');
        git(mine.root, 'add', '.');
        git(mine.root, 'commit', '-qm', 'init');
        w.adapt(mine);
      },
    );
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
      await until(() => gitRun('status', '--porcelain').toString() === '');
      expect(gitRun('check-ignore', '.loupe/sessions/ses-1.json').toString().trim()).toBe('.loupe/sessions/ses-1.json');
    } finally {
      await opened.dispose();
      await own.dispose();
      await repo.cleanup();
    }
  });
});
