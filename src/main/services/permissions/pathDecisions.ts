// Decisions for every path a command line reads or writes: each word expanded as bash would
// in every folder the line may be in, each result followed through symlinks to where the
// kernel puts it, then judged: outside the workspace, Loupe's and Git's own files, read and
// edit rules. A path only known at run time asks.
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { CommandAnalysis, PathRef } from './commandAnalysis';
import { expandWord, isKnown, type Word } from './expansion';
import { insideRel, physicalPath } from './physicalPath';
import type { Decision } from './types';

/** How the engine judges one resolved path; null when nothing needs saying. */
export interface PathJudge {
  root: string;
  outside(abs: string): Promise<Decision>;
  write(rel: string, beneath: boolean, ref: PathRef): Decision | null;
  read(rel: string, beneath: boolean, ref: PathRef): Decision | null;
  /** Only protected paths: what a program we know nothing of is handed. */
  maybeWrite(rel: string, ref: PathRef): Decision | null;
}

/** Devices every shell script touches; they are not "outside the workspace" in any useful sense. */
const HARMLESS_PATHS = /^\/dev\/(null|zero|u?random|stdin|stdout|stderr|tty|fd\/\d+)$/;
/** What a command we know nothing of takes for a path: absolute, home, or climbing out. */
const PATH_LIKE = /^(\/|\.\.(\/|$))/;
const MAX_FOLDERS = 64;

interface Folders {
  dirs: string[];
  /** Why a later relative path cannot be placed, when a `cd` went somewhere unknown. */
  unknown: string | null;
}

/**
 * Every folder the line may be in when a path is opened: the start and every `cd` target from
 * every folder already reachable, until nothing new appears. Order is ignored (loops and
 * subshells make it unreliable), so this is a superset.
 */
async function folders(cds: Word[], start: string): Promise<Folders> {
  const dirs = new Set([start]);
  const done = new Set<string>();
  for (let round = 0; round < 8; round++) {
    const before = dirs.size;
    for (const [i, cd] of cds.entries()) {
      for (const from of [...dirs]) {
        if (done.has(`${i}\0${from}`)) continue;
        done.add(`${i}\0${from}`);
        const targets = expandWord(cd, { cwd: from });
        if (!targets) return { dirs: [...dirs], unknown: `cd ${cd.raw} goes to a folder only known when it runs` };
        for (const t of targets) {
          if (process.env.CDPATH && !/^(\/|\.\.?(\/|$))/.test(t)) return { dirs: [...dirs], unknown: `CDPATH is set, so cd ${cd.raw} may go to another folder` };
          // bash's cd is logical (`link/..` is where you started); files opened there are not.
          dirs.add(path.resolve(from, t));
          const real = physicalPath(t.startsWith('/') ? t : `${from}/${t}`);
          if (real) dirs.add(real);
        }
        if (dirs.size > MAX_FOLDERS) return { dirs: [...dirs], unknown: 'the command changes folder too many ways to follow' };
      }
    }
    if (dirs.size === before) break;
  }
  return { dirs: [...dirs], unknown: null };
}

function isFolder(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function describeRef(ref: PathRef): string {
  if (ref.by === 'redirect') return ref.write ? 'a redirect' : 'an input redirect';
  return ref.write ? `written by ${ref.by}` : `an argument of ${ref.by}`;
}

function unknownDecision(ref: PathRef, why: string): Decision {
  const risk = ref.write ? 'so it may be in .git, .loupe or outside the workspace' : 'so it may be outside the workspace or a file a read rule denies';
  return { action: 'ask', kind: 'external_directory', subject: ref.raw, rule: null, reason: `${ref.raw} (${describeRef(ref)}): ${why}, ${risk}`, always: [] };
}

export async function judgePaths(a: CommandAnalysis, cwd: string, judge: PathJudge): Promise<Decision[]> {
  const where = await folders(a.cds, cwd);
  const out: Decision[] = [];
  const seen = new Set<string>();
  for (const ref of a.paths) {
    if (!isKnown(ref.word)) {
      if (!ref.ifPathLike) out.push(unknownDecision(ref, ref.word.unknown));
      continue;
    }
    const absolute = /^(\/|~)/.test(ref.word.pattern);
    let bases = absolute ? [cwd] : where.dirs;
    if (!absolute && where.unknown) {
      // Where a relative name lands is unknown; a command we know nothing of only matters if it names a path.
      const here = expandWord(ref.word, { cwd });
      if (!ref.ifPathLike || !here || here.some((v) => PATH_LIKE.test(v))) out.push(unknownDecision(ref, `it is relative to a folder that is unknown (${where.unknown})`));
      bases = [];
    }
    for (const base of bases) {
      const words = expandWord(ref.word, { cwd: base });
      if (!words) {
        if (!ref.ifPathLike) out.push(unknownDecision(ref, 'it expands to more names than can be checked'));
        continue;
      }
      for (const w of words) {
        const v = ref.prefix && w.startsWith(ref.prefix) ? w.slice(ref.prefix.length) : w;
        if (v === '' || v === '-' || HARMLESS_PATHS.test(v)) continue;
        // A process's own view (/proc/self/cwd, /dev/fd/3/…) is the command's, not Loupe's.
        if (/^\/(proc|dev\/fd)\//.test(v)) {
          if (!ref.ifPathLike || ref.mayRead) out.push(unknownDecision(ref, 'it names a file through a process\'s view of the file system, which is only known when it runs'));
          continue;
        }
        const real = physicalPath(v.startsWith('/') ? v : `${base}/${v}`);
        if (ref.ifPathLike && !PATH_LIKE.test(v)) {
          // An operand of a program we know nothing of: it may read or write what it names.
          if (!ref.mayRead || real === null || seen.has(`${real}\0maybe`)) continue;
          seen.add(`${real}\0maybe`);
          const rel = insideRel(judge.root, real);
          // Through a link in the workspace to somewhere outside.
          if (rel === null) {
            out.push(await judge.outside(real));
            continue;
          }
          const d = judge.maybeWrite(rel, ref) ?? (existsSync(real) ? judge.read(rel, false, ref) : null);
          if (d) out.push({ ...d, action: d.action === 'deny' ? 'ask' : d.action, reason: `${d.reason}; ${ref.by} may read or change it` });
          continue;
        }
        const key = `${real}\0${ref.write}\0${ref.read}\0${ref.beneath}`;
        if (seen.has(key)) continue;
        seen.add(key);
        if (real === null) {
          out.push(unknownDecision(ref, 'it goes through a loop of symlinks'));
          continue;
        }
        const rel = insideRel(judge.root, real);
        if (rel === null) {
          const d = await judge.outside(real);
          // What it changes there is no modification: nothing can take it back.
          out.push(ref.write ? { ...d, risk: [`it writes outside the workspace (${real}), where no change can be undone`] } : d);
          continue;
        }
        const wd = ref.write ? judge.write(rel, !!ref.beneath, ref) : null;
        // A folder handed to a command that does not recurse is not read (`cat *` meets `secrets/`).
        const rd = ref.read && (ref.beneath || !isFolder(real)) ? judge.read(rel, !!ref.beneath, ref) : null;
        if (wd) out.push(wd);
        if (rd) out.push(rd);
      }
    }
  }
  return out;
}

/** Could a path rule match something beneath the folder `rel` (or the folder itself)? */
export function mayMatchUnder(pattern: string, rel: string): boolean {
  if (rel === '') return !pattern.startsWith('/') && !pattern.startsWith('~');
  const literal = pattern.slice(0, pattern.search(/[*?[{]|$/));
  const dir = `${rel}/`;
  return literal.startsWith(dir) || dir.startsWith(literal) || literal === rel;
}
