import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { git, tempDir, until, writeTree } from '../../../../test/support/tmp';
import { GitBadges } from './gitBadges';

let dir: string;
let cleanup: () => Promise<void>;
let badges: GitBadges | null = null;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir('loupe-badges-'));
  git(dir, 'init', '-q');
  await writeTree(dir, { 'a.ts': 'a' });
  git(dir, 'add', '.');
  git(dir, 'commit', '-qm', 'init');
  await writeFile(path.join(dir, 'a.ts'), 'changed');
});
afterEach(async () => {
  badges?.dispose();
  await cleanup();
});

it('a status that hits its time bound makes the folder slow, keeps the last badges, and clears when one finishes', async () => {
  const slow: boolean[] = [];
  // The bound is read per run: short only while git is stuck, so a status slowed by a busy
  // machine is never the one that hits it.
  const opts = { timeoutMs: 30_000, onSlow: (s: boolean) => void slow.push(s) };
  badges = new GitBadges(dir, opts);
  await badges.refresh();
  expect(badges.status).toEqual({ 'a.ts': 'M' });
  expect(slow).toEqual([]);

  // A FIFO where git reads ignore rules: status blocks in open() until it is killed.
  await mkdir(path.join(dir, 'stuck'));
  execFileSync('mkfifo', [path.join(dir, 'stuck', '.gitignore')]);
  opts.timeoutMs = 300;
  await badges.refresh();
  expect(slow).toEqual([true]);
  expect(badges.slow).toBe(true);
  expect(badges.status).toEqual({ 'a.ts': 'M' });
  await badges.refresh();
  expect(slow, 'said once while it stays slow').toEqual([true]);

  await rm(path.join(dir, 'stuck', '.gitignore'));
  await writeFile(path.join(dir, 'stuck', 'file.ts'), 'x');
  opts.timeoutMs = 30_000;
  await badges.refresh();
  expect(slow).toEqual([true, false]);
  expect(badges.slow).toBe(false);
  expect(badges.status).toEqual({ 'a.ts': 'M', 'stuck/file.ts': '?' });
});

it('a burst of refreshes runs git at most twice (one running, one queued) and reports a change once', async () => {
  const seen: Record<string, string>[] = [];
  badges = new GitBadges(dir, { onStatus: (s) => seen.push(s) });
  await badges.refresh();
  expect(seen).toEqual([{ 'a.ts': 'M' }]);
  const runsBefore = badges.runs;
  await writeFile(path.join(dir, 'b.ts'), 'b');
  await Promise.all(Array.from({ length: 20 }, () => badges!.refresh()));
  expect(badges.runs - runsBefore).toBeGreaterThanOrEqual(1);
  expect(badges.runs - runsBefore).toBeLessThanOrEqual(2);
  expect(seen).toEqual([{ 'a.ts': 'M' }, { 'a.ts': 'M', 'b.ts': '?' }]);
  // Nothing changed: a run reports nothing.
  await badges.refresh();
  expect(seen).toHaveLength(2);
});

it('disposing stops a waiting refresh without running git again', async () => {
  badges = new GitBadges(dir);
  await badges.refresh();
  const runs = badges.runs;
  const first = badges.refresh();
  const queued = badges.refresh();
  badges.dispose();
  await Promise.all([first, queued]);
  expect(badges.runs - runs).toBeLessThanOrEqual(1);
});

it('waits while another git command holds the index lock, then runs once it is gone', async () => {
  const seen: Record<string, string>[] = [];
  badges = new GitBadges(dir, { onStatus: (s) => seen.push(s) });
  const lock = path.join(dir, '.git', 'index.lock');
  await writeFile(lock, '');
  const done = badges.refresh();
  await new Promise((r) => setTimeout(r, 400));
  expect(badges.runs, 'no status while a checkout is midway').toBe(0);
  await rm(lock);
  await done;
  expect(badges.runs).toBe(1);
  expect(seen).toEqual([{ 'a.ts': 'M' }]);
});

it('a few paths ask git about those paths; many, a .gitignore at the top or a known rename ask for the whole status', async () => {
  badges = new GitBadges(dir, { fullEveryMs: Infinity });
  await badges.refresh();
  const count = () => ({ runs: badges!.runs, pathRuns: badges!.pathRuns });
  await writeTree(dir, { 'b.ts': 'b', 'sub/.gitignore': '*.log\n', 'sub/x.log': 'x' });
  await badges.refreshPaths(['b.ts', 'sub/.gitignore']);
  expect(count()).toEqual({ runs: 1, pathRuns: 1 });
  // The folder's rules decide its files: sub/x.log is ignored, and asked about through sub.
  expect(badges.status).toEqual({ 'a.ts': 'M', 'b.ts': '?', 'sub/.gitignore': '?' });

  await badges.refreshPaths(Array.from({ length: 101 }, (_, i) => `n${i}.ts`));
  expect(count()).toEqual({ runs: 2, pathRuns: 1 });
  await writeTree(dir, { '.gitignore': 'b.ts\n' });
  await badges.refreshPaths(['.gitignore']);
  expect(count()).toEqual({ runs: 3, pathRuns: 1 });
  expect(badges.status['b.ts']).toBeUndefined();

  // A staged rename: git pairs its sides only when shown both, so a path of it asks for all.
  git(dir, 'mv', 'a.ts', 'moved.ts');
  await badges.refresh();
  expect(badges.status['moved.ts']).toBe('R');
  const runs = badges.runs;
  await writeFile(path.join(dir, 'moved.ts'), 'again');
  await badges.refreshPaths(['moved.ts']);
  expect(badges.runs).toBe(runs + 1);
  expect(badges.status['moved.ts']).toBe('R');
});

it('a run by paths goes beside a whole status under way, and is laid over its older answer', { timeout: 120_000 }, async () => {
  badges = new GitBadges(dir, { fullEveryMs: Infinity, timeoutMs: 60_000 });
  await badges.refresh();
  expect(badges.status).toEqual({ 'a.ts': 'M' });
  // A whole status held on a FIFO where it reads ignore rules, after it has compared a.ts.
  await mkdir(path.join(dir, 'stuck'));
  const fifo = path.join(dir, 'stuck', '.gitignore');
  execFileSync('mkfifo', [fifo]);
  const whole = badges.refresh();
  // Held: git waits on the FIFO, so it has compared the tracked files already.
  await until(() => gitHeldOnFifo(dir), 60_000);
  await writeFile(path.join(dir, 'a.ts'), 'a');
  await badges.refreshPaths(['a.ts']);
  expect(badges.status, 'told while the whole status is held').toEqual({});
  // Let it go on: it may have read a.ts before it changed, and must not bring the M back.
  await writeFile(fifo, '');
  await whole;
  expect(badges.status['a.ts']).toBeUndefined();
  expect(badges.runs).toBe(2);
});

/** Whether a git working in `cwd` waits to open a FIFO (Linux: /proc names what it waits on). */
function gitHeldOnFifo(cwd: string): boolean {
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      if (comm === 'git' && readlinkSync(`/proc/${pid}/cwd`) === cwd && readFileSync(`/proc/${pid}/wchan`, 'utf8') === 'wait_for_partner') return true;
    } catch {
      // Gone meanwhile.
    }
  }
  return false;
}

it('while an intent-to-add file is paired with a deletion, a deletion anywhere asks for the whole status', async () => {
  // git pairs an intent-to-add file with a deleted one anywhere in the work tree, and prefers
  // a deleted file of the same name: removing a/g.log moves the pair away from src/f.ts, which
  // a status of a/g.log alone cannot say.
  await writeTree(dir, { 'src/f.ts': 'one\n', 'a/g.log': 'one\n' });
  git(dir, 'add', 'src', 'a');
  git(dir, 'commit', '-qm', 'two more');
  await writeFile(path.join(dir, 'g.log'), 'one\n');
  git(dir, 'add', '-N', 'g.log');
  await rm(path.join(dir, 'src/f.ts'));
  badges = new GitBadges(dir, { fullEveryMs: Infinity });
  await badges.refresh();
  // A work-tree rename shows as a change of the new file; the deleted side has no badge.
  expect(badges.status).toEqual({ 'a.ts': 'M', 'g.log': 'M' });
  await rm(path.join(dir, 'a/g.log'));
  await badges.refreshPaths(['a/g.log']);
  expect(badges.status).toEqual({ 'a.ts': 'M', 'g.log': 'M', 'src/f.ts': 'D' });
});
