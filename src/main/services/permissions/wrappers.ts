// Commands that only run another command (env, timeout, nice, nohup, command, builtin, time)
// are peeled off before rules are matched, so `timeout 5 rm -rf x` meets the rules for `rm`.
import path from 'node:path';

export interface Arg {
  /** The word's value when knowable, else null. */
  value: string | null;
  /** The word as written, for display and for matching when the value is unknowable. */
  raw: string;
}

export interface Unwrapped {
  args: Arg[];
  wrappers: string[];
  /** Why the real command cannot be known, if it cannot. */
  dynamic: string | null;
}

/** Variables that decide which program runs or what it loads: setting one is never routine. */
const RISKY_ENV =
  /^(PATH|LD_\w+|DYLD_\w+|BASH_ENV|ENV|SHELLOPTS|BASHOPTS|PS4|IFS|PROMPT_COMMAND|CDPATH|HOME|GIT_\w+|NODE_OPTIONS|NODE_PATH|PYTHON\w*|PERL5\w*|PERLLIB|RUBY\w*|GEM_\w+|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|npm_config_\w+|PAGER|EDITOR|VISUAL|BROWSER|SSH_ASKPASS|SUDO_ASKPASS|XDG_CONFIG_HOME|ZDOTDIR)$/i;

export function riskyAssignment(name: string): string | null {
  return RISKY_ENV.test(name) ? `sets ${name}, which changes what programs run or load` : null;
}

type Skipper = (args: Arg[], i: number) => number | { dynamic: string };

/** Options of each wrapper that take a separate value. */
const WITH_VALUE: Record<string, string[]> = {
  env: ['-u', '--unset', '-C', '--chdir'],
  timeout: ['-s', '--signal', '-k', '--kill-after'],
  nice: ['-n', '--adjustment'],
  time: ['-f', '--format', '-o', '--output'],
  command: [],
  builtin: [],
  nohup: [],
};

function skipOptions(name: string): Skipper {
  return (args, i) => {
    while (i < args.length) {
      const v = args[i].value;
      if (v === null) return { dynamic: `the arguments of ${name} are not known until it runs` };
      if (v === '--') return i + 1;
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
  for (;;) {
    const first = args[0]?.value;
    if (first === null || first === undefined) return { args, wrappers, dynamic: null };
    const name = path.basename(first);
    if (!WRAPPERS.has(name)) return { args, wrappers, dynamic: null };
    const next = skipOptions(name)(args, 1);
    if (typeof next === 'object') return { args, wrappers, dynamic: next.dynamic };
    // `env` or `time` alone is the whole command.
    if (next >= args.length) return { args, wrappers, dynamic: null };
    wrappers.push(name);
    args = args.slice(next);
  }
}
