// Loupe's git worktrees of one repository (docs/architecture.md, "Sessions in a worktree"): each a
// checkout of HEAD on its own branch `loupe/<name>`, in a folder Loupe owns beside the repository
// (never inside it), made and removed only through the one git runner. Removal is two steps: a
// report of what would be lost (uncommitted changes, commits the main folder's HEAD lacks) and a
// removal confirmed with that report's digest, so nothing unseen is deleted. A worktree whose
// folder was deleted by hand is listed as missing until `prune` forgets it.
import { createHash } from 'node:crypto';
import { lstat, mkdir, readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { InvalidArgumentError } from '../../errors';
import { GitRunner } from '../git/gitRunner';
import { BRANCH_PREFIX, branchOf, checkName, worktreePath } from './names';
import { prepareWorktree } from './prepare';
import { SpareCheckout } from './spare';
import { WorktreeChangedError, WorktreeNotFoundError } from './errors';

export interface WorktreesOptions {
  /** The person's folder for worktrees (settings `worktrees.folder`); worktrees go in `<folder>/<repository name>/`. */
  folder?: () => string | undefined;
  /** What a new worktree gets from the main folder (settings `worktrees.copy` and `worktrees.link`). */
  setup?: () => { copy: string[]; link: string[] };
  /** Keep one checkout ready for the next worktree (settings `worktrees.spare`; off unless given). */
  spare?: () => boolean;
  /** Where a spare that could not be made or taken is reported (it never fails a worktree). */
  report?: (err: unknown) => void;
}

export interface Prepared {
  copied: string[];
  linked: string[];
  skipped: { path: string; why: string }[];
}

export interface WorktreeInfo {
  name: string;
  branch: string;
  path: string;
  /** The folder is gone (deleted by hand); `prune` forgets it, `discard` removes its branch. */
  missing: boolean;
  /** Bytes of the files in the folder (links not followed); null when missing. */
  size_bytes: number | null;
  /** When the checkout was made (its `.git` file), ms since the epoch; null when missing. */
  created_ms: number | null;
}

export interface DiscardReport {
  name: string;
  branch: string;
  path: string;
  missing: boolean;
  /** `git status --porcelain` lines of the worktree: changes that exist nowhere else. */
  uncommitted: string[];
  /** Commits on the branch that the main folder's HEAD does not contain: `<sha> <subject>`. */
  commits: string[];
  /** Pass it back to `discard` to confirm exactly this report. */
  digest: string;
}

interface Listed {
  path: string;
  head?: string;
  branch: string | null;
  prunable: boolean;
}

export class Worktrees {
  private readonly git: GitRunner;
  private readonly spare: SpareCheckout;

  constructor(
    /** Realpath of the main folder: the repository's top. */
    readonly root: string,
    private readonly opts: WorktreesOptions = {},
  ) {
    this.git = new GitRunner(root);
    this.spare = new SpareCheckout({ git: this.git, gitAt: (dir) => new GitRunner(dir), listed: (signal) => this.listed(signal), report: opts.report });
  }

  /**
   * Where this repository's Loupe worktrees live (made on first use unless `create` is false, as
   * when only listing: opening a folder must not leave an empty folder beside it); refused inside
   * the workspace.
   */
  async folder(create = true): Promise<string> {
    await this.requireTop();
    const configured = this.opts.folder?.();
    const base = configured ? path.join(path.resolve(configured), path.basename(this.root)) : path.join(path.dirname(this.root), `${path.basename(this.root)}.loupe-worktrees`);
    if (!create && !(await exists(base))) return base;
    await mkdir(base, { recursive: true });
    const real = await realpath(base);
    const rel = path.relative(this.root, real);
    if (rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))) {
      throw new InvalidArgumentError(`The worktrees folder ${real} is inside the workspace ${this.root}; choose one outside it (settings "worktrees.folder").`);
    }
    return real;
  }

  /** Makes worktree `name` of HEAD on branch loupe/<name>, or finds it when it already exists. */
  async create(name: string, signal?: AbortSignal): Promise<{ path: string; branch: string; created: boolean; prepared?: Prepared }> {
    const branch = branchOf(name);
    const folder = await this.folder();
    const target = worktreePath(folder, name);
    const listed = await this.listed(signal);
    const known = listed.find((w) => w.path === target);
    if (known && !known.prunable) {
      if (known.branch !== `refs/heads/${branch}`) throw new InvalidArgumentError(`${target} is a worktree of another branch (${known.branch ?? 'detached'}); pick another name.`);
      return { path: target, branch, created: false };
    }
    if (known) await this.git.run(['worktree', 'prune'], { signal });
    if (await exists(target)) throw new InvalidArgumentError(`${target} already exists and is not a Loupe worktree; pick another name or move it away.`);
    const head = await this.git.exec(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], { signal });
    if (head.exitCode !== 0) throw new InvalidArgumentError('The repository has no commit yet: commit once, then make a worktree of it.');
    const commit = head.stdout.toString('utf8').trim();
    const hasBranch = (await this.git.exec(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], { signal })).exitCode === 0;
    // git cannot move a worktree holding submodules, so with them a spare could never be taken.
    const spare = this.opts.spare?.() === true && !(await exists(path.join(this.root, '.gitmodules')));
    if (!(spare && (await this.spare.claim(folder, target, branch, commit, hasBranch, signal, known ? undefined : listed)))) {
      // `--` ends the options: the path and branch are operands whatever they hold.
      const args = hasBranch ? ['worktree', 'add', '--quiet', '--', target, branch] : ['worktree', 'add', '--quiet', '-b', branch, '--', target, commit];
      await this.git.run(args, { signal, timeoutMs: 300_000 });
    }
    if (spare) this.spare.refill(folder);
    return { path: target, branch, created: true, prepared: await prepareWorktree(this.root, target, this.opts.setup?.() ?? { copy: [], link: [] }) };
  }

  /** The spare checkout kept ready for the next worktree, if one is: where, and its size. */
  async spareInfo(signal?: AbortSignal): Promise<{ path: string; size_bytes: number } | null> {
    const spare = await this.spare.ready(await this.folder(false), signal);
    return spare ? { path: spare, size_bytes: await sizeOf(spare, signal) } : null;
  }

  /** Waits until the spare checkout being made (if any) is ready or has failed. */
  spareSettled(): Promise<void> {
    return this.spare.settled();
  }

  /** Stops making a spare checkout; a half-made one is removed by its git, or the next time. */
  dispose(): Promise<void> {
    return this.spare.dispose();
  }

  /**
   * Every Loupe worktree of this repository, with its size and age; a folder deleted by hand shows
   * as missing. `sizes: false` leaves the sizes out (null): walking 100,000 files is not free.
   */
  async list(signal?: AbortSignal, opts: { sizes?: boolean } = {}): Promise<WorktreeInfo[]> {
    const folder = await this.folder(false);
    const sizes = opts.sizes !== false;
    const listed = await this.listed(signal);
    const out: WorktreeInfo[] = [];
    const seen = new Set<string>();
    for (const w of listed) {
      const name = path.basename(w.path);
      if (path.dirname(w.path) !== folder || w.branch !== `refs/heads/${BRANCH_PREFIX}${name}`) continue;
      seen.add(name);
      const missing = w.prunable || !(await exists(w.path));
      out.push({ name, branch: `${BRANCH_PREFIX}${name}`, path: w.path, missing, size_bytes: missing || !sizes ? null : await sizeOf(w.path, signal), created_ms: missing ? null : await createdAt(w.path) });
    }
    // A branch whose worktree was already pruned: still Loupe's, still to clean up.
    for (const name of await this.branches(signal)) {
      if (!seen.has(name)) out.push({ name, branch: `${BRANCH_PREFIX}${name}`, path: path.join(folder, name), missing: true, size_bytes: null, created_ms: null });
    }
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }

  /** `git worktree prune`: forgets worktrees whose folders are gone; returns their names (their branches stay). */
  async prune(signal?: AbortSignal): Promise<string[]> {
    const gone = (await this.list(signal)).filter((w) => w.missing).map((w) => w.name);
    await this.git.run(['worktree', 'prune'], { signal });
    return gone;
  }

  /** The worktree's folder, or WorktreeNotFoundError (a missing folder too). */
  async pathOf(name: string, signal?: AbortSignal): Promise<string> {
    checkName(name);
    const w = (await this.list(signal)).find((x) => x.name === name);
    if (!w || w.missing) throw new WorktreeNotFoundError(name);
    return w.path;
  }

  /** The folders new worktrees link to the main folder's (settings `worktrees.link`): not the worktree's own work. */
  linked(): string[] {
    return this.opts.setup?.().link ?? [];
  }

  /** Every path setup puts in a new worktree (copied and linked): never committed by a merge (a copied `.env` is a secret). */
  setupPaths(): string[] {
    const s = this.opts.setup?.();
    return s ? [...s.copy, ...s.link] : [];
  }

  /** What discarding `name` would lose; changes nothing. */
  async report(name: string, signal?: AbortSignal): Promise<DiscardReport> {
    const branch = branchOf(name);
    const w = (await this.list(signal)).find((x) => x.name === name);
    if (!w) throw new WorktreeNotFoundError(name);
    const links = new Set(this.linked().map((l) => `?? ${l}`));
    const uncommitted = w.missing ? [] : (await new GitRunner(w.path).run(['status', '--porcelain=v1', '-z', '--untracked-files=all'], { signal })).split('\0').filter((l) => l && !links.has(l));
    const log = await this.git.run(['log', '--format=%H %s', '-z', `refs/heads/${branch}`, '--not', 'HEAD', '--'], { signal });
    const commits = log.split('\0').filter(Boolean);
    const digest = createHash('sha256').update(JSON.stringify([w.path, w.missing, uncommitted, commits])).digest('hex');
    return { name, branch, path: w.path, missing: w.missing, uncommitted, commits, digest };
  }

  /**
   * Removes the worktree's folder and its branch, only when `confirm` is the digest of the report
   * as it stands now (else WorktreeChangedError and nothing is removed).
   */
  async discard(name: string, confirm: string, signal?: AbortSignal): Promise<void> {
    const now = await this.report(name, signal);
    if (now.digest !== confirm) throw new WorktreeChangedError(name);
    if (!now.missing) await this.git.run(['worktree', 'remove', '--force', '--', now.path], { signal, timeoutMs: 300_000 });
    await this.git.run(['worktree', 'prune'], { signal });
    await this.git.run(['branch', '-D', now.branch], { signal });
    // The last worktree gone: so is the spare kept for the next one.
    if ((await this.list(signal, { sizes: false })).length === 0) await this.spare.clear(await this.folder(false), signal);
  }

  private async requireTop(): Promise<void> {
    const out = await this.git.exec(['rev-parse', '--show-toplevel']);
    const top = out.exitCode === 0 ? await realpath(out.stdout.toString('utf8').trim()).catch(() => null) : null;
    if (top !== this.root) throw new InvalidArgumentError(`${this.root} is not the top folder of a git repository; worktrees need one.`);
  }

  private async listed(signal?: AbortSignal): Promise<Listed[]> {
    const text = await this.git.run(['worktree', 'list', '--porcelain', '-z'], { signal });
    const out: Listed[] = [];
    let cur: Listed | null = null;
    for (const field of text.split('\0')) {
      if (field.startsWith('worktree ')) out.push((cur = { path: field.slice(9), branch: null, prunable: false }));
      else if (cur && field.startsWith('HEAD ')) cur.head = field.slice(5);
      else if (cur && field.startsWith('branch ')) cur.branch = field.slice(7);
      else if (cur && (field === 'prunable' || field.startsWith('prunable '))) cur.prunable = true;
    }
    return out;
  }

  /** Names of the branches under loupe/ that are valid worktree names. */
  private async branches(signal?: AbortSignal): Promise<string[]> {
    const text = await this.git.run(['for-each-ref', '--format=%(refname)', `refs/heads/${BRANCH_PREFIX}`], { signal });
    return text
      .split('\n')
      .map((r) => r.slice(`refs/heads/${BRANCH_PREFIX}`.length))
      .filter((n) => {
        try {
          return !!checkName(n);
        } catch {
          return false;
        }
      });
  }
}

async function exists(p: string): Promise<boolean> {
  return lstat(p).then(
    () => true,
    () => false,
  );
}

async function createdAt(dir: string): Promise<number | null> {
  const st = await lstat(path.join(dir, '.git')).catch(() => null);
  return st ? (st.birthtimeMs > 0 ? st.birthtimeMs : st.mtimeMs) : null;
}

/** Bytes of every file below `dir`, links counted as themselves. */
async function sizeOf(dir: string, signal?: AbortSignal): Promise<number> {
  let total = 0;
  const stack = [dir];
  while (stack.length) {
    if (signal?.aborted) break;
    const d = stack.pop()!;
    const entries = await readdir(d, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) stack.push(p);
      else total += (await lstat(p).catch(() => null))?.size ?? 0;
    }
  }
  return total;
}
