// Which command lines only read (docs/architecture.md, "Plan mode"). Built on the command
// analysis: every simple command of the line (chains, pipes, substitutions, `bash -c`, `find
// -exec`, `xargs` opened up) must be a program known to only read, with none of the options that
// make it write or run another program, and no redirect or operand may write. Anything else —
// an unknown program, a word only known at run time where an option could hide, a dynamic
// command — is not read-only: the classifier errs towards refusing. In plan mode this decides
// which commands run; the OS sandbox then also holds the workspace read-only around them.
import path from 'node:path';
import type { CommandAnalysis } from './commandAnalysis';
import { isKnown } from './expansion';

/**
 * `sandboxOnly`: it only reads by its own words, but runs programs a file in the workspace can name
 * (git's repository config: fsmonitor, textconv and diff drivers, gpg), so it may run only where the
 * OS sandbox holds the workspace read-only.
 */
export type ReadOnlyVerdict = { readOnly: true; sandboxOnly?: string } | { readOnly: false; why: string };

/** Programs that run what the repository's own config names. */
const CONFIGURED_BY_WORKSPACE: Readonly<Record<string, string>> = {
  git: "git runs programs the repository's own config names (fsmonitor, textconv and diff drivers, gpg)",
};

interface ProgramRule {
  /** An option word that makes it write or run something. */
  risky?: RegExp;
  /** Words bash decides at run time could be such an option: refuse them (unless after `--`). */
  strictWords?: boolean;
  /** It takes no operand (`hostname name` sets the name). */
  noOperands?: boolean;
  /** Checks the words after the program itself; returns why not, or null. */
  check?: (args: (string | null)[]) => string | null;
}

const PLAIN: ProgramRule = {};
const READERS = (
  'ls pwd echo printf cat head tail wc nl tac rev cut paste fold fmt expand unexpand column od hexdump strings base64 base32 ' +
  'md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum cksum cmp comm diff stat du df readlink realpath basename dirname ' +
  'which whoami id uname printenv seq sleep test [ [[ true false tr jq grep egrep fgrep find xargs nproc uptime free ps groups locale getconf tty'
).split(' ');
const AWK_RULE: ProgramRule = { risky: /^(-[a-zA-Z]*i|--(include|inplace))/, strictWords: true };

/** The programs known to only read, and the options that make each write or run another program. */
const RULES: Readonly<Record<string, ProgramRule>> = {
  ...Object.fromEntries(READERS.map((p) => [p, PLAIN])),
  sort: { risky: /^(-[a-zA-Z]*[oT]|--(output|temporary-directory|compress-program|files0-from)(=|$))/, strictWords: true },
  uniq: { strictWords: true, check: (a) => (a.filter((w) => w !== null && !w.startsWith('-')).length > 1 ? 'uniq writes its second operand' : null) },
  rg: { risky: /^--(pre|pre-glob|hostname-bin)(=|$)/, strictWords: true },
  tree: { risky: /^(-[a-zA-Z]*o|--output)/, strictWords: true },
  file: { risky: /^(-[a-zA-Z]*C|--compile)/, strictWords: true },
  date: { risky: /^(-[a-zA-Z]*s|--set)/, strictWords: true },
  hostname: { noOperands: true, risky: /^(-[a-zA-Z]*[bF]|--(boot|file))/, strictWords: true },
  env: { noOperands: true, strictWords: true },
  git: { strictWords: true, check: (args) => gitReadOnly(args) },
  // Their scripts' own writes (sed's w, awk's print >) are write paths the analysis reports.
  sed: { risky: /^(-[a-zA-Z]*i|--in-place)/, strictWords: true },
  awk: AWK_RULE,
  gawk: AWK_RULE,
  mawk: AWK_RULE,
  nawk: AWK_RULE,
};

/** `git log` and its kin: only these subcommands, only in their reading forms. */
const GIT_READERS = new Set(
  'log show diff status rev-parse ls-files ls-tree blame shortlog describe grep rev-list name-rev merge-base count-objects cherry whatchanged diff-tree diff-files diff-index check-ignore check-attr for-each-ref show-ref var version show-branch'.split(' '),
);
const GIT_RISKY = /^--(output|ext-diff|textconv|filters|open-files-in-pager)(=|$)|^-O/;
const REF_FILTERS = 'sort=.*|format=.*|contains(=.*)?|no-contains(=.*)?|merged(=.*)?|no-merged(=.*)?|points-at(=.*)?|column(=.*)?|no-column|colou?r(=.*)?|no-colou?r|ignore-case|abbrev=.*|no-abbrev';
const BRANCH_LIST = new RegExp(`^(-[arvl]+|--(all|remotes|verbose|list|show-current|${REF_FILTERS}))$`);
const TAG_LIST = new RegExp(`^(-l|-n\\d*|--(list|${REF_FILTERS}))$`);

/**
 * Subcommands that only read in some forms (`git branch` lists, `git branch x` creates): why the
 * words after the subcommand are not a listing form, or null when they are.
 */
const GIT_LISTERS: Record<string, (rest: string[]) => string | null> = {
  // Patterns after --list name branches to show; without it an operand is a branch to create.
  branch: (rest) => refList(rest, BRANCH_LIST),
  tag: (rest) => refList(rest, TAG_LIST),
  remote: (rest) => firstWordIn(rest, /^(-v|--verbose)$/, [undefined, 'show', 'get-url']),
  stash: (rest) => firstWordIn(rest, /^$/, ['list', 'show']),
  worktree: (rest) => firstWordIn(rest, /^$/, ['list']),
  reflog: (rest) => firstWordIn(rest, /^$/, [undefined, 'show']),
  config: (rest) => (rest.some((v) => /^(--get|--get-all|--get-regexp|--list|-l|get|list)$/.test(v)) && !rest.some((v) => /^(--(add|replace-all|unset|unset-all|rename-section|remove-section|edit|file|blob)|-[ef]|set|unset|edit|rename-section|remove-section)(=|$)/.test(v)) ? null : 'only --get and --list forms read'),
};

function refList(rest: string[], options: RegExp): string | null {
  const listing = rest.some((v) => v === '--list' || v === '-l');
  const stray = rest.find((v) => !options.test(v) && (v.startsWith('-') || !listing));
  return stray === undefined ? null : `${stray} is not a listing form`;
}

/** Options from `opts` up to the first word, which must be one of `words` (undefined: none). */
function firstWordIn(rest: string[], opts: RegExp, words: (string | undefined)[]): string | null {
  const first = rest.find((v) => !opts.test(v) || !v.startsWith('-'));
  return words.includes(first) ? null : `${first ?? '(nothing)'} is not a listing form`;
}

function gitReadOnly(args: (string | null)[]): string | null {
  let i = 0;
  // Global options: -C dir, --no-pager, -P. Anything else before the subcommand is not known to read.
  for (; i < args.length; i++) {
    const v = args[i];
    if (v === '-C') i++;
    else if (v === '--no-pager' || v === '-P' || v === '--no-optional-locks' || v === '--literal-pathspecs' || v === '--no-replace-objects') continue;
    else break;
  }
  const sub = args[i];
  if (sub === null || sub === undefined) return 'git is run without a subcommand known when it starts';
  const rest = args.slice(i + 1);
  if (sub === '--version' || sub === 'version') return null;
  const lister = Object.hasOwn(GIT_LISTERS, sub) ? GIT_LISTERS[sub] : undefined;
  if (lister) {
    if (rest.includes(null)) return `git ${sub} is given a word only known when it runs`;
    const why = lister(rest as string[]);
    return why ? `git ${sub} changes the repository in this form (${why}); only its listing forms read` : null;
  }
  if (!GIT_READERS.has(sub)) return `git ${sub} is not a git command known to only read`;
  let afterDashDash = false;
  for (const v of rest) {
    if (v === '--') afterDashDash = true;
    else if (v === null && !afterDashDash) return `git ${sub} is given a word only known when it runs, which could be an option that writes`;
    else if (v !== null && !afterDashDash && GIT_RISKY.test(v)) return `git ${sub} ${v} writes a file or runs another program`;
  }
  return null;
}

/** Redirect targets that are not files: writing there changes nothing. */
const HARMLESS_TARGETS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/fd/1', '/dev/fd/2']);

function programVerdict(argv: (string | null)[], text: string): string | null {
  const name = argv[0];
  if (name === null || name === undefined) return `${text}: its program is only known when it runs`;
  // `/usr/bin/ls` is ls, but `./ls` is whatever the workspace put there.
  if (name.includes('/') && !/^\/(usr\/)?(local\/)?s?bin\/[^/]+$/.test(name)) return `${text}: ${name} is a program from a path, not a known reader`;
  const base = path.basename(name);
  const rule = Object.hasOwn(RULES, base) ? RULES[base] : undefined;
  if (!rule) return `${base} is not a command known to only read`;
  const args = argv.slice(1);
  let afterDashDash = false;
  for (const v of args) {
    if (v === '--') {
      afterDashDash = true;
      continue;
    }
    if (v === null) {
      if (rule.strictWords && !afterDashDash) return `${base} is given a word only known when it runs, which could be an option that writes`;
      continue;
    }
    if (!afterDashDash && rule.risky?.test(v)) return `${base} ${v} writes a file or runs another program`;
    if (rule.noOperands && (afterDashDash || !v.startsWith('-'))) return `${base} ${v} changes something (${base} only reads without operands)`;
  }
  return rule.check?.(args) ?? null;
}

/** Is this analysed command line read-only? When not, one reason a model can act on. */
export function readOnlyVerdict(analysis: CommandAnalysis): ReadOnlyVerdict {
  if (analysis.problems.length) return { readOnly: false, why: `it cannot be checked: ${analysis.problems[0]}` };
  let sandboxOnly: string | undefined;
  for (const c of analysis.commands) {
    if (c.dynamic) return { readOnly: false, why: `${c.text}: ${c.dynamic}` };
    if (c.control) continue;
    const why = programVerdict(c.argv, c.text);
    if (why) return { readOnly: false, why };
    const base = path.basename(c.argv[0] ?? '');
    if (Object.hasOwn(CONFIGURED_BY_WORKSPACE, base)) sandboxOnly ??= CONFIGURED_BY_WORKSPACE[base];
  }
  for (const ref of analysis.paths) {
    if (!ref.write) continue;
    const target = isKnown(ref.word) ? ref.word.pattern : null;
    if (ref.by === 'redirect' && target !== null && HARMLESS_TARGETS.has(target)) continue;
    return { readOnly: false, why: `${ref.raw} is written (by ${ref.by})` };
  }
  return sandboxOnly ? { readOnly: true, sandboxOnly } : { readOnly: true };
}
