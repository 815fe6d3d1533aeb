// Generated changes to a real folder, each with the paths a watcher would report for it, for the
// equivalence properties of the file index and the git badges: whatever happens on disk, state
// patched from the reported paths must equal state read afresh.
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';

/** Folders the changes happen in: some ignored by the rules below, some nested three deep. */
export const DIRS = ['a', 'a/b', 'a/build', 'build', 'build/x', 'node_modules', 'node_modules/p', 'src', 'src/b', 'x', 'x/y', 'x/y/z'];
const NAMES = ['f.ts', 'g.log', 'h.tmp', 'keep.log', '.env'];
/** Rules an ignore file may hold: plain, anchored, folder-only, negated. */
const RULES = ['*.log', '!keep.log', 'build/', '/b', 'b/', 'h.tmp', '*.tmp', 'node_modules/', 'y', '/x/y/z', '.env', 'src'];
const CONTENTS = ['one\n', 'two\n', 'three\n'];

export type TreeOp =
  | { op: 'write'; file: string; content: string }
  | { op: 'remove'; rel: string }
  | { op: 'renameFile'; from: string; to: string }
  | { op: 'renameDir'; from: string; to: string }
  | { op: 'ignore'; dir: string; rules: string[]; kind: '.gitignore' | '.ignore' }
  | { op: 'moveIn'; to: string; files: string[]; rules: string[] }
  | { op: 'moveOut'; from: string }
  | { op: 'mkdir'; dir: string }
  | { op: 'link'; at: string; to: string }
  | { op: 'repo'; dir: string };

const dir = fc.constantFrom(...DIRS);
const inDir = (d: fc.Arbitrary<string>) => fc.tuple(d, fc.constantFrom(...NAMES)).map(([a, b]) => `${a}/${b}`);
const file = fc.oneof(fc.constantFrom(...NAMES), inDir(dir));
const rules = fc.subarray(RULES, { maxLength: 3 });
const content = fc.constantFrom(...CONTENTS);

export const treeOp: fc.Arbitrary<TreeOp> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant('write' as const), file, content }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('remove' as const), rel: fc.oneof(file, dir) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('renameFile' as const), from: file, to: file }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('renameDir' as const), from: dir, to: dir }) },
  // Mostly nested: the root's own rules send the index to a whole walk.
  { weight: 3, arbitrary: fc.record({ op: fc.constant('ignore' as const), dir: fc.oneof({ weight: 5, arbitrary: dir }, { weight: 1, arbitrary: fc.constant('') }), rules, kind: fc.constantFrom('.gitignore' as const, '.ignore' as const) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('moveIn' as const), to: dir, files: fc.subarray(['f.ts', 'g.log', 'k/f.ts', 'k/h.tmp', 'build/f.ts', 'y/z/f.ts'], { minLength: 1 }), rules }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('moveOut' as const), from: dir }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('mkdir' as const), dir }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('link' as const), at: fc.constantFrom('ln', 'a/ln'), to: dir }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('repo' as const), dir }) },
);

const abs = (root: string, rel: string) => path.join(root, rel);
const exists = (p: string) => {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
};
const isDir = (p: string) => exists(p) && lstatSync(p).isDirectory();

/** Makes the folders up to `rel` (as `mkdir -p`); returns the topmost one made, which a watcher reports. */
function mkdirs(root: string, rel: string): string | null {
  if (rel === '' || rel === '.') return null;
  const parts = rel.split('/');
  for (let i = 1; i <= parts.length; i++) {
    const d = parts.slice(0, i).join('/');
    if (!exists(abs(root, d))) {
      mkdirSync(abs(root, rel), { recursive: true });
      return d;
    }
    if (!isDir(abs(root, d))) return null;
  }
  return null;
}

/** Whether the parent folders of `rel` can be made (no file or link sits on the way). */
function canMake(root: string, rel: string): boolean {
  const parts = rel.split('/').slice(0, -1);
  for (let i = 1; i <= parts.length; i++) {
    const p = abs(root, parts.slice(0, i).join('/'));
    if (exists(p) && !isDir(p)) return false;
  }
  return true;
}

/** Everything below a folder, as DirWatches reports a folder that arrives whole. */
function below(root: string, rel: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(abs(root, d), { withFileTypes: true })) {
      const r = `${d}/${e.name}`;
      out.push(r);
      if (e.isDirectory()) walk(r);
    }
  };
  if (isDir(abs(root, rel))) walk(rel);
  return out;
}

const parent = (rel: string) => (rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '');

/**
 * Applies one change (skipped when it does not apply: a missing source, a folder into itself)
 * and returns the paths a watcher reports for it. `verbose`: also what a new folder holds.
 */
export function applyOp(root: string, outside: string, op: TreeOp, verbose: boolean): string[] {
  const made = (rel: string): string[] => {
    const top = mkdirs(root, parent(rel));
    return top ? [top] : [];
  };
  const whole = (rel: string) => (verbose ? below(root, rel) : []);
  switch (op.op) {
    case 'write': {
      if (!canMake(root, op.file) || isDir(abs(root, op.file))) return [];
      const paths = made(op.file);
      writeFileSync(abs(root, op.file), op.content);
      return [...paths, op.file];
    }
    case 'remove':
      if (!exists(abs(root, op.rel))) return [];
      rmSync(abs(root, op.rel), { recursive: true, force: true });
      return [op.rel];
    case 'renameFile': {
      const from = abs(root, op.from);
      if (!exists(from) || isDir(from) || op.from === op.to || !canMake(root, op.to) || isDir(abs(root, op.to))) return [];
      const paths = made(op.to);
      renameSync(from, abs(root, op.to));
      return [...paths, op.from, op.to];
    }
    case 'renameDir': {
      const from = abs(root, op.from);
      if (!isDir(from) || op.to === op.from || op.to.startsWith(`${op.from}/`) || op.from.startsWith(`${op.to}/`) || !canMake(root, op.to)) return [];
      const paths: string[] = [];
      if (exists(abs(root, op.to))) {
        rmSync(abs(root, op.to), { recursive: true, force: true });
        paths.push(op.to);
      }
      paths.push(...made(op.to));
      renameSync(from, abs(root, op.to));
      return [...paths, op.from, op.to, ...whole(op.to)];
    }
    case 'ignore': {
      const rel = op.dir ? `${op.dir}/${op.kind}` : op.kind;
      if (!canMake(root, rel)) return [];
      const paths = made(rel);
      if (op.rules.length) writeFileSync(abs(root, rel), `${op.rules.join('\n')}\n`);
      else if (exists(abs(root, rel))) rmSync(abs(root, rel));
      else return paths;
      return [...paths, rel];
    }
    case 'moveIn': {
      if (exists(abs(root, op.to)) || !canMake(root, op.to)) return [];
      const aside = path.join(outside, 'incoming');
      rmSync(aside, { recursive: true, force: true });
      for (const f of op.files) {
        mkdirSync(path.dirname(path.join(aside, f)), { recursive: true });
        writeFileSync(path.join(aside, f), 'moved\n');
      }
      if (op.rules.length) writeFileSync(path.join(aside, '.gitignore'), `${op.rules.join('\n')}\n`);
      const paths = made(op.to);
      renameSync(aside, abs(root, op.to));
      return [...paths, op.to, ...whole(op.to)];
    }
    case 'moveOut': {
      if (!isDir(abs(root, op.from))) return [];
      const gone = path.join(outside, 'gone');
      rmSync(gone, { recursive: true, force: true });
      renameSync(abs(root, op.from), gone);
      return [op.from];
    }
    case 'mkdir': {
      if (!canMake(root, `${op.dir}/x`)) return [];
      return made(`${op.dir}/x`);
    }
    case 'link': {
      if (exists(abs(root, op.at)) || !canMake(root, op.at)) return [];
      const paths = made(op.at);
      symlinkSync(abs(root, op.to), abs(root, op.at));
      return [...paths, op.at];
    }
    case 'repo': {
      if (!canMake(root, `${op.dir}/.git/x`) || existsSync(abs(root, `${op.dir}/.git`))) return [];
      const paths = made(`${op.dir}/.git/x`);
      return paths.length ? paths : [`${op.dir}/.git`];
    }
  }
}

/** Empties the folder but for the entries named in `keep` (the repository's own .git). */
export function resetFolder(root: string, keep: string[] = ['.git']): void {
  for (const name of readdirSync(root)) if (!keep.includes(name)) rmSync(path.join(root, name), { recursive: true, force: true });
}

/**
 * A sequence of changes, each with whether the watcher also names what a new folder holds and
 * whether a batch ends after it (about one in three; the last always does).
 */
export const batches = fc.array(fc.tuple(treeOp, fc.boolean(), fc.nat(2).map((n) => n === 0)), { minLength: 1, maxLength: 8 });

const IGNORE_NAMES = new Set(['.gitignore', '.ignore']);

/** The folder's entries but .git's, one line, for a failure message: folders end in /, links in @, ignore files show their rules. */
export function describeTree(root: string): string {
  return below(root, '.')
    .filter((p) => !p.startsWith('./.git/'))
    .map((p) => {
      const rel = p.slice(2);
      if (isDir(abs(root, p))) return `${rel}/`;
      if (lstatSync(abs(root, p)).isSymbolicLink()) return `${rel}@`;
      return IGNORE_NAMES.has(path.basename(p)) ? `${rel}[${readFileSync(abs(root, p), 'utf8').trim().split('\n').join(',')}]` : rel;
    })
    .sort()
    .join(' ');
}
