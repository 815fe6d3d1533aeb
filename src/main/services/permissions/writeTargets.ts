// Commands whose write targets are decided by their own language or by their input: dd's
// `of=`, sed's `w`, awk's `print > f`, archives being extracted, inline scripts, git's own
// writers. What the analysis cannot name it reports as a write to an unknown path, which a
// rule can never allow silently.
import { literalWord, unknownWord } from './expansion';
import type { PathRef } from './commandPaths';
import type { Arg } from './wrappers';

export interface LanguageTargets {
  refs: PathRef[];
  /** The command runs other programs the analysis cannot see (awk's system(), git -c). */
  dynamic?: string;
}

const unknownWrite = (by: string, why: string): PathRef => ({ word: unknownWord(by, why), raw: by, by, write: true });
const values = (args: Arg[]) => args.slice(1).map((a) => a.value);

/** `-x`, or a bundle of short flags containing x, before `--`. */
function hasFlag(args: Arg[], short: string, long: string[] = []): boolean {
  for (const v of values(args)) {
    if (v === null) continue;
    if (v === '--') return false;
    if (long.some((l) => v === l || v.startsWith(`${l}=`))) return true;
    if (/^-[A-Za-z0-9]+$/.test(v) && v.includes(short)) return true;
  }
  return false;
}

function dd(args: Arg[]): LanguageTargets {
  const refs: PathRef[] = [];
  for (const a of args.slice(1)) {
    const v = a.value;
    // The whole word is expanded by bash, then dd splits at `=`.
    const word = a.word ?? (v === null ? unknownWord(a.raw, `${a.raw} is only known when it runs`) : literalWord(v));
    if (v === null) refs.push({ word, raw: a.raw, by: 'dd', write: true });
    else if (v.startsWith('of=')) refs.push({ word, raw: a.raw, by: 'dd', write: true, prefix: 'of=' });
    else if (v.startsWith('if=')) refs.push({ word, raw: a.raw, by: 'dd', write: false, read: true, prefix: 'if=' });
  }
  return { refs };
}

/** sed scripts: any command that writes a file (w, W, s///w), reads one (r, R) or runs one (e, s///e). */
function sedScriptWrites(script: string): boolean {
  // A full parse is long; a w/W/e/r/R where a command letter could stand is reason enough to
  // ask. `s` and `y` bodies and /re/ addresses are blanked first so `s/world/x/` is no `w`.
  const withoutS = script.replace(/s(.)(?:\\.|(?!\1)[^\\])*\1(?:\\.|(?!\1)[^\\])*\1([a-zA-Z0-9]*)/g, (_m, _d, flags: string) => (/[we]/.test(flags) ? ' w ' : ' '));
  const withoutY = withoutS.replace(/y(.)(?:\\.|(?!\1)[^\\])*\1(?:\\.|(?!\1)[^\\])*\1/g, ' ');
  const bare = withoutY.replace(/\/(?:\\.|[^/\\])*\//g, ' ').replace(/\\(.)/g, ' ');
  return /(^|[^A-Za-z])[wWeRr]/.test(bare);
}

function sed(args: Arg[]): LanguageTargets {
  const refs: PathRef[] = [];
  const scripts: (string | null)[] = [];
  let sawScriptOpt = false;
  const rest = args.slice(1);
  for (let i = 0; i < rest.length; i++) {
    const v = rest[i].value;
    if (v === null) continue;
    if (v === '-e' || v === '--expression') {
      sawScriptOpt = true;
      scripts.push(rest[i + 1]?.value ?? null);
      i++;
    } else if (v.startsWith('--expression=')) {
      sawScriptOpt = true;
      scripts.push(v.slice('--expression='.length));
    } else if (v === '-f' || v === '--file' || v.startsWith('--file=') || /^-[a-zA-Z]*f/.test(v)) {
      sawScriptOpt = true;
      scripts.push(null);
    } else if (/^-[a-zA-Z]*e/.test(v) && !v.startsWith('--')) {
      sawScriptOpt = true;
      const attached = v.slice(v.indexOf('e') + 1);
      scripts.push(attached || (rest[++i]?.value ?? null));
    }
  }
  if (!sawScriptOpt) {
    const first = rest.find((a) => a.value === null || !a.value.startsWith('-') || a.value === '-');
    scripts.push(first?.value ?? null);
  }
  if (scripts.some((s) => s === null)) refs.push(unknownWrite('sed', 'the sed script is only known when it runs, and sed scripts can write files'));
  else if (scripts.some((s) => sedScriptWrites(s!))) refs.push(unknownWrite('sed', 'the sed script may write or run files (w, W, e, r commands), whose names the script decides'));
  return { refs };
}

const AWKS = new Set(['awk', 'gawk', 'mawk', 'nawk']);

function awk(base: string, args: Arg[]): LanguageTargets {
  const rest = args.slice(1);
  let program: string | null | undefined;
  for (let i = 0; i < rest.length; i++) {
    const v = rest[i].value;
    if (v === null) break;
    if (v === '--') {
      program = rest[i + 1]?.value ?? null;
      break;
    }
    if (v === '-f' || v.startsWith('--file') || v === '-e' || v.startsWith('--source') || v === '-i' || v.startsWith('--include') || v === '-l' || v.startsWith('--load') || /^-[a-zA-Z]*[fEiel]/.test(v)) {
      return { refs: [], dynamic: `${base} is given a program file or extension, which can run anything` };
    }
    if (v === '-v' || v === '-F' || v === '--assign' || v === '--field-separator') {
      i++;
      continue;
    }
    if (v.startsWith('-') && v !== '-') continue;
    program = v;
    break;
  }
  if (program === null) return { refs: [], dynamic: `the ${base} program is only known when it runs` };
  if (program === undefined) return { refs: [] };
  if (/system|\|/.test(program)) return { refs: [], dynamic: `the ${base} program runs commands (system() or a pipe)` };
  if (/>|getline/.test(program)) return { refs: [unknownWrite(base, `the ${base} program may write to files it names itself (print > file)`)] };
  return { refs: [] };
}

/** Interpreters given a program on the command line: what they write is up to the program. */
const INLINE: Record<string, RegExp> = {
  perl: /^-[a-zA-Z]*[eEi]/,
  python: /^-[a-zA-Z]*c/,
  python3: /^-[a-zA-Z]*c/,
  python2: /^-[a-zA-Z]*c/,
  node: /^(-[a-zA-Z]*[ep]|--eval|--print)/,
  deno: /^eval$/,
  bun: /^(-e|--eval|-p|--print)$/,
  ruby: /^-[a-zA-Z]*[ei]/,
  php: /^-[a-zA-Z]*[rB]/,
  lua: /^-[a-zA-Z]*e/,
  Rscript: /^-e$/,
  osascript: /^-e$/,
  tclsh: /^-/,
  ed: /./,
  ex: /./,
  vi: /^(-c|\+)/,
  vim: /^(-c|\+|-s|-S)/,
  nvim: /^(-c|\+|-s|-S|--cmd)/,
  emacs: /^(--batch|--eval|-l|--load|-batch)/,
};

const STDIN_PROGRAM = new Set(['perl', 'python', 'python3', 'python2', 'node', 'ruby', 'php', 'lua', 'tclsh', 'bun', 'deno']);

function inline(base: string, args: Arg[]): LanguageTargets {
  const re = INLINE[base];
  // `ed file` reads its commands from stdin: the script is the input, so ed always counts.
  if (base === 'ed' || base === 'ex') return { refs: [unknownWrite(base, `${base} takes its commands from its input, which decide what is written`)] };
  let script = false;
  for (const v of values(args)) {
    if (v === null) return { refs: [unknownWrite(base, `${base} is given arguments only known when it runs`)] };
    if (re.test(v)) return { refs: [unknownWrite(base, `${base} runs a program given on the command line, which decides what it writes`)] };
    if (v === '-') break;
    if (!v.startsWith('-')) {
      script = true;
      break;
    }
  }
  // `python3 <<EOF …`, `node -`: the program is the input.
  if (!script && STDIN_PROGRAM.has(base)) return { refs: [unknownWrite(base, `${base} runs a program read from its input, which decides what it writes`)] };
  return { refs: [] };
}

/** curl's `-d @file`, `-F f=@file`, `-F f=<file` upload a file's content. */
function curlUploads(args: Arg[]): PathRef[] {
  const refs: PathRef[] = [];
  for (const a of args.slice(1)) {
    const v = a.value;
    const m = v === null ? null : /^@|^[^;]*?=[@<]/.exec(v);
    if (!m || v === `${m[0]}-`) continue;
    // Bash expands the whole word (`@{a,b}` is `@a @b`); curl then drops the marker.
    refs.push({ word: a.word ?? literalWord(v!), raw: a.raw, by: 'curl', write: false, read: true, prefix: m[0] });
  }
  return refs;
}

function tar(args: Arg[]): LanguageTargets {
  const vs = values(args);
  if (vs.some((v) => v !== null && /^--(to-command|use-compress-program|checkpoint-action|info-script|new-volume-script|rsh-command)|^-[a-zA-Z]*[IF]$/.test(v))) {
    return { refs: [], dynamic: 'tar is told to run another program' };
  }
  const oldStyle = vs[0] !== null && vs[0] !== undefined && /^[a-zA-Z]+$/.test(vs[0]);
  const extracting = vs.some((v) => v === null || /^--(extract|get)$/.test(v) || /^-[a-zA-Z]*x/.test(v)) || (oldStyle && vs[0]!.includes('x'));
  if (extracting) return { refs: [unknownWrite('tar', 'tar extracts files whose names come from the archive')] };
  // `tar cf archive files`: the archive is one of the operands; each may be written.
  if (oldStyle) return { refs: args.slice(2).filter((a) => !a.value?.startsWith('-')).map((a) => ({ word: a.word ?? unknownWord(a.raw, `${a.raw} is only known when it runs`), raw: a.raw, by: 'tar', write: true })) };
  return { refs: [] };
}

function unzip(args: Arg[]): LanguageTargets {
  if (hasFlag(args, 'l') || hasFlag(args, 'Z') || hasFlag(args, 'p') || hasFlag(args, 't') || hasFlag(args, 'v')) return { refs: [] };
  return { refs: [unknownWrite('unzip', 'unzip extracts files whose names come from the archive')] };
}

const GIT_CODE_RUNNERS = new Set('filter-branch filter-repo difftool mergetool bisect submodule instaweb daemon web--browse credential send-email'.split(' '));

function git(args: Arg[]): LanguageTargets {
  const rest = args.slice(1);
  let i = 0;
  for (; i < rest.length; i++) {
    const v = rest[i].value;
    if (v === null) return { refs: [], dynamic: 'git is given arguments only known when it runs' };
    if (v === '-c' || v.startsWith('--config-env') || /^-c./.test(v) || v.startsWith('--exec-path') || v === '-p' || v === '--paginate') {
      return { refs: [], dynamic: 'git is given configuration or a pager on the command line, which can run programs' };
    }
    if (v === '--git-dir' || v === '--work-tree' || v === '--namespace' || v === '--super-prefix') {
      return { refs: [unknownWrite('git', 'git is pointed at another repository or work tree')] };
    }
    if (v.startsWith('--git-dir=') || v.startsWith('--work-tree=')) return { refs: [unknownWrite('git', 'git is pointed at another repository or work tree')] };
    if (v === '-C') {
      i++;
      continue;
    }
    if (!v.startsWith('-')) break;
  }
  const sub = rest[i]?.value ?? '';
  const subArgs = rest.slice(i + 1).map((a) => a.value);
  if (GIT_CODE_RUNNERS.has(sub) || (sub === 'rebase' && subArgs.some((v) => v === '-x' || v?.startsWith('--exec'))) || (sub === 'grep' && subArgs.some((v) => v === '-O' || v?.startsWith('--open-files-in-pager')))) {
    return { refs: [], dynamic: `git ${sub} runs programs` };
  }
  // `git config key` reads; `git config key value`, `set`, `--unset`, `--edit` … write.
  const configOperands = subArgs.filter((v) => v === null || !v.startsWith('-'));
  const configReads = subArgs.some((v) => v !== null && /^(--get|--get-all|--get-regexp|--list|-l|--show-origin|get|list)/.test(v)) || (configOperands.length === 1 && !subArgs.some((v) => v === null || /^(-e|--edit|--unset|--add|--replace-all|--rename-section|--remove-section)/.test(v)));
  if (sub === 'config' && !configReads) {
    return { refs: [{ word: literalWord('.git/config'), raw: 'git config', by: 'git config', write: true }] };
  }
  const gitConfig = { refs: [{ word: literalWord('.git/config'), raw: `git ${sub}`, by: `git ${sub}`, write: true }] };
  if (sub === 'remote' && subArgs.some((v) => v !== null && /^(add|set-url|rename|remove|rm|set-head|set-branches)$/.test(v))) return gitConfig;
  if (sub === 'submodule' && subArgs[0] === 'status') return { refs: [] };
  if ((sub === 'worktree' && subArgs.some((v) => v === 'add' || v === 'move')) || sub === 'hook' || sub === 'update-index') {
    return { refs: [unknownWrite('git', `git ${sub} writes into .git or folders it names itself`)] };
  }
  // A template copies hooks into the repository.
  if ((sub === 'init' || sub === 'clone') && subArgs.some((v) => v === null || /^--(template|separate-git-dir)/.test(v))) {
    return { refs: [unknownWrite('git', `git ${sub} with a template or separate git dir writes hooks and config it copies from elsewhere`)] };
  }
  // Other writers (add, commit, checkout, …) write git's own structures, not files the model names.
  return { refs: [] };
}

/** Paths a command writes that its plain operands do not say, or why they cannot be known. */
export function languageTargets(base: string, args: Arg[]): LanguageTargets {
  if (base === 'dd') return dd(args);
  if (base === 'sed') return sed(args);
  if (AWKS.has(base)) return awk(base, args);
  if (base in INLINE) return inline(base, args);
  if (base === 'tar' || base === 'bsdtar') return tar(args);
  if (base === 'unzip') return unzip(args);
  if (base === 'git') return git(args);
  if (base === 'cpio') return hasFlag(args, 'o', ['--create']) && !hasFlag(args, 'i', ['--extract']) && !hasFlag(args, 'p', ['--pass-through']) ? { refs: [] } : { refs: [unknownWrite('cpio', 'cpio writes files whose names come from its input')] };
  if (['7z', '7za', '7zr', 'ar', 'unrar', 'patch', 'rsync', 'scp', 'sftp', 'sqlite3', 'duckdb'].includes(base)) return { refs: [unknownWrite(base, `${base} writes files whose names come from its input or the other side`)] };
  if (base === 'wget' && !values(args).some((v) => v !== null && /^(-O|--output-document|-[a-zA-Z]*O)/.test(v))) {
    // Without -O, wget saves under a name the server decides, in -P's folder or the current one.
    return { refs: [{ word: literalWord('.'), raw: 'wget', by: 'wget', write: true, beneath: true }] };
  }
  if (base === 'curl') {
    const uploads = curlUploads(args);
    if (values(args).some((v) => v !== null && /^(-[a-zA-Z]*O|--remote-name|-[a-zA-Z]*J|--remote-header-name|--remote-name-all)/.test(v))) {
      return { refs: [...uploads, { word: literalWord('.'), raw: 'curl -O', by: 'curl', write: true, beneath: true }] };
    }
    return { refs: uploads };
  }
  return { refs: [] };
}
