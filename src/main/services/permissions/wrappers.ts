// Commands that only run another command (env, timeout, nice, nohup, command, builtin, time)
// are peeled off before rules are matched, so `timeout 5 rm -rf x` meets the rules for `rm`.
import path from 'node:path';
import type { Word } from './expansion';

export interface Arg {
  /** The word's value when knowable, else null. */
  value: string | null;
  /** The word as written, for display and for matching when the value is unknowable. */
  raw: string;
  /** The word as bash will expand it (globs, braces, `~`), for path checks. */
  word?: Word;
  /** Supplied at run time (xargs' input): a path to check, not part of the text rules match. */
  hidden?: true;
  /** Unquoted glob characters: as a command name, only known once bash has matched it. */
  glob?: true;
}

export interface Unwrapped {
  args: Arg[];
  wrappers: string[];
  /** Why the real command cannot be known, if it cannot. */
  dynamic: string | null;
  /** Folders a wrapper runs the command in (`env -C dir`). */
  chdir: Arg[];
  /** Files a wrapper itself writes (`time -o report`): write paths like a redirect's. */
  writes: Arg[];
}

/** Variables that decide which program runs or what it loads (a config file naming one counts): setting one is never routine. */
const RISKY_ENV =
  /^(PATH|GLOBIGNORE|LD_\w+|DYLD_\w+|BASH_ENV|ENV|SHELLOPTS|BASHOPTS|PS4|IFS|PROMPT_COMMAND|CDPATH|HOME|GIT_\w+|NODE_OPTIONS|NODE_PATH|PYTHON\w*|PERL5\w*|PERLLIB|RUBY\w*|GEM_\w+|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|npm_config_\w+|PAGER|EDITOR|VISUAL|BROWSER|SSH_ASKPASS|SUDO_ASKPASS|XDG_CONFIG_HOME|ZDOTDIR|RIPGREP_CONFIG_PATH|\w*PAGER|LESSOPEN|LESSCLOSE|GREP_OPTIONS|TAR_OPTIONS)$/i;

export function riskyAssignment(name: string): string | null {
  return RISKY_ENV.test(name) ? `sets ${name}, which changes what programs run or load` : null;
}

type Skipper = (args: Arg[], i: number, chdir: Arg[], writes: Arg[]) => number | { dynamic: string };

/** Options of each wrapper that take a separate value. */
const WITH_VALUE: Record<string, string[]> = {
  env: ['-u', '--unset', '-C', '--chdir'],
  timeout: ['-s', '--signal', '-k', '--kill-after'],
  nice: ['-n', '--adjustment'],
  time: ['-f', '--format', '-o', '--output'],
  command: [],
  builtin: [],
  nohup: [],
  stdbuf: ['-i', '-o', '-e', '--input', '--output', '--error'],
  setsid: [],
  ionice: ['-c', '--class', '-n', '--classdata', '-t'],
};

function skipOptions(name: string): Skipper {
  return (args, i, chdir, writes) => {
    while (i < args.length) {
      const v = args[i].value;
      if (v === null) return { dynamic: `the arguments of ${name} are not known until it runs` };
      if (v === '--') return i + 1;
      // GNU time writes its report to the file after -o.
      if (name === 'time' && (v === '-o' || v === '--output') && args[i + 1]) writes.push(args[i + 1]);
      else if (name === 'time' && (v.startsWith('--output=') || /^-[^-]*o/.test(v))) return { dynamic: 'time writes its report to a file given with its option' };
      if (name === 'env' && (v === '-C' || v === '--chdir') && args[i + 1]) chdir.push(args[i + 1]);
      else if (name === 'env' && (v.startsWith('--chdir=') || /^-C./.test(v))) return { dynamic: 'env runs the command in a folder given with its option' };
      if (name === 'env' && (v === '-S' || v.startsWith('--split-string') || /^-[^-]*S/.test(v))) return { dynamic: 'env -S turns a string into a command' };
      if (name === 'env' && /^[A-Za-z_]\w*=/.test(v)) {
        const risky = riskyAssignment(v.slice(0, v.indexOf('=')));
        if (risky) return { dynamic: risky };
        i++;
        continue;
      }
      if (!v.startsWith('-') || v === '-') break;
      i += WITH_VALUE[name].includes(v) ? 2 : 1;
    }
    // timeout takes its duration before the command.
    return name === 'timeout' ? i + 1 : i;
  };
}

const WRAPPERS = new Set(Object.keys(WITH_VALUE));

export function unwrap(input: Arg[]): Unwrapped {
  let args = input;
  const wrappers: string[] = [];
  const chdir: Arg[] = [];
  const writes: Arg[] = [];
  for (;;) {
    const first = args[0]?.value;
    if (first === null || first === undefined) return { args, wrappers, dynamic: null, chdir, writes };
    const name = path.basename(first);
    if (!WRAPPERS.has(name)) return { args, wrappers, dynamic: null, chdir, writes };
    const next = skipOptions(name)(args, 1, chdir, writes);
    if (typeof next === 'object') return { args, wrappers, dynamic: next.dynamic, chdir, writes };
    // `env` or `time` alone is the whole command.
    if (next >= args.length) return { args, wrappers, dynamic: null, chdir, writes };
    wrappers.push(name);
    args = args.slice(next);
  }
}
