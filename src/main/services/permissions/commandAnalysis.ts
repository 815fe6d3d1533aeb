// Splits a shell command line into every simple command it would run, so each one meets the
// rules on its own: chains, pipes, subshells, groups, substitutions, process substitutions,
// `bash -c '…'` strings, `find -exec` and `xargs` all open up. Anything whose meaning is only
// known at run time is marked dynamic and can never be allowed by a rule.
import path from 'node:path';
import { bashParser, type BashNode } from './bashParser';
import { hasGlob, staticWord } from './shellWords';
import { riskyAssignment, unwrap, type Arg } from './wrappers';

export interface PathRef {
  /** The path as the command will see it, or null when only known at run time. */
  value: string | null;
  raw: string;
  /** What refers to it: "redirect", or the command name. */
  by: string;
  /** The command may create, change or delete it (an output redirect, rm, mv, tee, …). */
  write: boolean;
}

export interface AnalysedCommand {
  /** Words after wrappers, joined by spaces: what bash rules match. */
  text: string;
  /** Why no rule may allow it (eval, `$CMD`, …), else null. */
  dynamic: string | null;
  /** Set when the command is `cd`: where it goes (null when unknowable). */
  cd?: string | null;
  /** How it was reached when not written at top level: "bash -c", "find -exec", "xargs", "eval". */
  via?: string;
  /** A shell builtin that runs no program (`cd`, `exit`, `true`): needs no rule, its paths are still checked. */
  control?: true;
}

export interface CommandAnalysis {
  commands: AnalysedCommand[];
  /** Redirect targets and path arguments, in source order, for external_directory checks. */
  paths: PathRef[];
  /** Reasons the whole input can never be allowed (unparsable, CR, odd whitespace). */
  problems: string[];
}

const MAX_DEPTH = 4;
const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'yash', 'busybox']);
const CONTROL = new Set(['cd', 'pushd', 'popd', 'exit', 'return', 'true', 'false', ':', 'break', 'continue', 'shift', 'wait', 'set']);
const DYNAMIC = new Set(['eval', 'exec', 'source', '.', 'trap', 'alias', 'enable', 'hash', 'fc', 'bind', 'complete', 'coproc']);
/** Commands whose plain arguments are files or folders. */
const FILE_COMMANDS = new Set(
  'cd pushd ls cat tac head tail less more nl rm rmdir unlink mkdir touch cp mv ln install chmod chown chgrp stat file wc du find tree diff cmp tee truncate shred readlink realpath tar zip unzip gzip gunzip bzip2 xz sort uniq cut paste split sha1sum sha256sum md5sum base64 strings hexdump xxd od dd rsync scp source grep egrep fgrep rg ag ack sed awk open xdg-open code'.split(
    ' ',
  ),
);
/** File commands that change what they name. */
const WRITERS = new Set('rm rmdir unlink mkdir touch cp mv ln install chmod chown chgrp tee truncate shred tar zip unzip gzip gunzip bzip2 xz split dd rsync scp sed'.split(' '));
/** File commands whose first plain argument is a pattern or a script, not a path. */
const PATTERN_FIRST = new Set(['grep', 'egrep', 'fgrep', 'rg', 'ag', 'ack', 'sed', 'awk']);
/** Anything else: arguments that are paths beyond doubt. */
const PATH_LIKE = /^(\/|~|\.\.(\/|$))/;
// eslint-disable-next-line no-control-regex
const ODD_CHARS = /[\r\v\f\u0085\u00a0\u1680\u180e\u2000-\u200b\u2028\u2029\u202f\u205f\u3000\ufeff\x00-\x08\x0e-\x1f\x7f]/;

interface Walk {
  out: CommandAnalysis;
  depth: number;
  via?: string;
  parse: (source: string, fn: (root: BashNode) => void) => void;
}

const argOf = (node: BashNode): Arg => ({ value: hasGlob(node) ? null : staticWord(node), raw: node.text });
const plainArg = (node: BashNode): Arg => ({ value: staticWord(node), raw: node.text });
const textOf = (args: Arg[]) => args.map((a) => a.value ?? a.raw).join(' ');

function describeChar(c: string): string {
  return c === '\r' ? 'a carriage return' : `the character U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

export async function analyseCommand(source: string): Promise<CommandAnalysis> {
  const parser = await bashParser();
  const out: CommandAnalysis = { commands: [], paths: [], problems: [] };
  const odd = ODD_CHARS.exec(source);
  if (odd) out.problems.push(`it contains ${describeChar(odd[0])}, which can hide what runs`);
  const walk: Walk = { out, depth: 0, parse: (s, fn) => parser.withTree(s, fn) };
  walk.parse(source, (root) => visit(root, walk));
  return out;
}

function visit(node: BashNode, w: Walk): void {
  if (node.type === 'ERROR' || node.isMissing) {
    w.out.problems.push(`it could not be parsed near "${node.text.slice(0, 40)}"`);
  }
  switch (node.type) {
    case 'command':
      onCommand(node, w);
      break;
    case 'function_definition':
      push(w, { text: node.text.split('\n')[0], dynamic: `it defines the function ${node.childForFieldName('name')?.text ?? ''}, which can shadow any command` });
      break;
    case 'variable_assignment':
      if (node.parent?.type !== 'command') checkAssignment(node, w);
      break;
    case 'for_statement': {
      // `for PATH in /tmp/evil; do git status; done` assigns as surely as PATH=… does.
      const risky = riskyAssignment(node.childForFieldName('variable')?.text ?? '');
      if (risky) push(w, { text: node.text.split('\n')[0], dynamic: `it ${risky}` });
      break;
    }
    case 'file_redirect':
      onRedirect(node, w);
      break;
  }
  for (const c of node.children) visit(c, w);
}

function push(w: Walk, c: AnalysedCommand): void {
  w.out.commands.push(w.via ? { ...c, via: w.via } : c);
}

function checkAssignment(node: BashNode, w: Walk): void {
  const name = node.childForFieldName('name')?.text ?? '';
  const risky = riskyAssignment(name);
  if (risky) push(w, { text: node.text, dynamic: `it ${risky}` });
}

function onRedirect(node: BashNode, w: Walk): void {
  const dest = node.childForFieldName('destination');
  if (!dest) return;
  const op = node.children.find((c) => /^[<>&|]+$/.test(c.type))?.type ?? '';
  // `2>&1`, `>&-`: duplicating or closing a descriptor, not a file.
  if ((op === '>&' || op === '<&') && (dest.type === 'number' || dest.text === '-')) return;
  w.out.paths.push({ value: staticWord(dest), raw: dest.text, by: 'redirect', write: op !== '<' && op !== '<&' });
}

function onCommand(node: BashNode, w: Walk): void {
  let dynamic: string | null = null;
  const args: Arg[] = [];
  node.children.forEach((c, i) => {
    const field = node.fieldNameForChild(i);
    if (c.type === 'variable_assignment') {
      const risky = riskyAssignment(c.childForFieldName('name')?.text ?? '');
      if (risky) dynamic ??= `it ${risky}`;
    } else if (field === 'name') {
      const word = c.firstNamedChild ?? c;
      const a = argOf(word);
      if (a.value === null) dynamic ??= `its command name ${word.text} is only known when it runs`;
      args.push(a);
    } else if (field === 'argument') {
      args.push(plainArg(c));
    }
  });
  runArgs(args, dynamic, w);
}

/** Applies wrappers, special forms and path extraction to one command's words. */
function runArgs(input: Arg[], dynamicIn: string | null, w: Walk): void {
  const { args, dynamic: wrapDynamic } = unwrap(input);
  let dynamic = dynamicIn ?? wrapDynamic;
  const name = args[0]?.value ?? null;
  const base = name === null ? null : path.basename(name);
  if (name === null && !dynamic) dynamic = `its command name ${args[0]?.raw ?? ''} is only known when it runs`;
  if (base !== null && DYNAMIC.has(base)) dynamic ??= `${base} runs code that is only known when it runs`;

  if (base !== null && SHELLS.has(base) && !dynamic) {
    const script = shellScript(args);
    if (script === undefined) {
      // A shell reading a script file or stdin: an ordinary command.
    } else if (script === null) {
      dynamic = `${base} -c is given a script that is only known when it runs`;
    } else {
      return nested(script, `${base} -c`, w);
    }
  }
  const command: AnalysedCommand = { text: textOf(args), dynamic };
  if (base !== null && CONTROL.has(base) && !dynamic) command.control = true;
  if (base === 'cd' || base === 'pushd') {
    const to = args.length > 1 ? args[args.length - 1].value : '~';
    // `cd -` goes back to a folder we never saw.
    command.cd = to === '-' ? null : to;
  }
  push(w, command);

  if (base === 'eval' && args.slice(1).every((a) => a.value !== null)) nested(args.slice(1).map((a) => a.value).join(' '), 'eval', w);
  if (base === 'exec' && args.length > 1) runArgs(args.slice(1), null, { ...w, via: 'exec' });
  if (base === 'find') findExec(args, w);
  if (base === 'xargs') xargsCommand(args, w);
  collectPaths(base, args, w);
}

/** The script of `sh -c script`: undefined when there is no -c, null when it is not static. */
function shellScript(args: Arg[]): string | null | undefined {
  for (let i = 1; i < args.length; i++) {
    const v = args[i].value;
    if (v === null) return null;
    if (v === '--' || !v.startsWith('-')) return undefined;
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(v)) {
      for (let j = i + 1; j < args.length; j++) {
        const s = args[j].value;
        if (s === null) return null;
        if (s === '--' || !s.startsWith('-') || s === '-') return s === '--' ? (args[j + 1]?.value ?? null) : s;
      }
      return null;
    }
  }
  return undefined;
}

function nested(script: string, via: string, w: Walk): void {
  if (w.depth >= MAX_DEPTH) {
    push(w, { text: script, dynamic: `${via} is nested too deeply to follow` });
    return;
  }
  const inner: Walk = { ...w, depth: w.depth + 1, via };
  const odd = ODD_CHARS.exec(script);
  if (odd) w.out.problems.push(`its ${via} script contains ${describeChar(odd[0])}`);
  w.parse(script, (root) => visit(root, inner));
}

function findExec(args: Arg[], w: Walk): void {
  for (let i = 1; i < args.length; i++) {
    if (!['-exec', '-execdir', '-ok', '-okdir'].includes(args[i].value ?? '')) continue;
    let end = i + 1;
    while (end < args.length && args[end].value !== ';' && args[end].value !== '+') end++;
    if (end > i + 1) runArgs(args.slice(i + 1, end), null, { ...w, via: 'find -exec' });
    i = end;
  }
}

const XARGS_WITH_VALUE = new Set(['-I', '-n', '-P', '-L', '-d', '-E', '-s', '-a', '--max-args', '--max-procs', '--delimiter', '--arg-file', '--replace', '--eof', '--max-lines', '--max-chars']);

function xargsCommand(args: Arg[], w: Walk): void {
  let i = 1;
  while (i < args.length) {
    const v = args[i].value;
    if (v === null) return runArgs([args[i]], null, { ...w, via: 'xargs' });
    if (v === '--') {
      i++;
      break;
    }
    if (!v.startsWith('-')) break;
    i += XARGS_WITH_VALUE.has(v) ? 2 : 1;
  }
  if (i < args.length) runArgs(args.slice(i), null, { ...w, via: 'xargs' });
}

function collectPaths(base: string | null, args: Arg[], w: Walk): void {
  if (base === null) return;
  const isFileCommand = FILE_COMMANDS.has(base);
  const write = WRITERS.has(base);
  let skipPattern = PATTERN_FIRST.has(base);
  let afterDashDash = false;
  for (const a of args.slice(1)) {
    const v = a.value;
    // `<(cmd)` is a pipe the shell makes; the command inside is judged on its own.
    if (/^[<>]\(/.test(a.raw)) continue;
    if (v === '--' && !afterDashDash) {
      afterDashDash = true;
      continue;
    }
    if (v !== null && v.startsWith('-') && !afterDashDash) {
      const eq = v.indexOf('=');
      if (eq > 0 && PATH_LIKE.test(v.slice(eq + 1))) w.out.paths.push({ value: v.slice(eq + 1), raw: a.raw, by: base, write });
      continue;
    }
    if (skipPattern) {
      skipPattern = false;
      continue;
    }
    if (isFileCommand || (v !== null && PATH_LIKE.test(v))) w.out.paths.push({ value: v, raw: a.raw, by: base, write });
  }
}
