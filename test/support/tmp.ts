import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** A real temp folder, realpath'd (macOS /var → /private/var) and removed by `cleanup`. */
export async function tempDir(prefix = 'loupe-test-', base = os.tmpdir()): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await realpath(await mkdtemp(path.join(base, prefix)));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** A temp folder holding a workspace (`<dir>/<name>`, made) and a Loupe home beside it (`<dir>/home`, not made). */
export interface TempWorkspace {
  dir: string;
  root: string;
  home: string;
  cleanup: () => Promise<void>;
}

export async function tempWorkspace(prefix: string, name = 'ws'): Promise<TempWorkspace> {
  const t = await tempDir(prefix);
  const root = path.join(t.dir, name);
  await mkdir(root);
  return { ...t, root, home: path.join(t.dir, 'home') };
}

export async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(root, rel);
    await mkdir(path.dirname(abs), { recursive: true });
    await writeFile(abs, content);
  }
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=Test', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export async function until<T>(probe: () => T | Promise<T>, timeoutMs = 30_000, everyMs = 25): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * Where a test that writes thousands of small files and fsyncs each puts its own folder: memory
 * (/dev/shm) where there is one, so it measures Loupe's logic rather than the disk.
 */
export const memoryTmp = (): string => (existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir());

/** A git repository at `root` holding `files` in one commit. */
export async function committedRepo(root: string, files: Record<string, string>): Promise<string> {
  await writeTree(root, files);
  git(root, 'init', '-q');
  git(root, 'add', '.');
  git(root, 'commit', '-qm', 'init');
  return root;
}
