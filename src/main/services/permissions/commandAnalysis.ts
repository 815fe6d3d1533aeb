// Splits a shell command line into every simple command it would run, so each one meets the
// rules on its own: chains, pipes, subshells, groups, substitutions, process substitutions,
// `bash -c '…'` strings, `find -exec` and `xargs` all open up. Anything whose meaning is only
// known at run time is marked dynamic and can never be allowed by a rule.
import path from 'node:path';
import { bashParser, type BashNode } from './bashParser';
import { operandRefs, type PathRef } from './commandPaths';
import { expandBraces, isKnown, literalWord, unescape, unknownWord, wordOfNodes, type Word } from './expansion';
import { hasGlob, staticWord } from './shellWords';
import { riskyAssignment, unwrap, type Arg } from './wrappers';
import { languageTargets } from './writeTargets';

export type { PathRef } from './commandPaths';

export interface AnalysedCommand {
  /** Words after wrappers, joined by spaces: what bash rules match. */
  text: string;
  /** Why no rule may allow it (eval, `$CMD`, …), else null. */
  dynamic: string | null;
  /** How it was reached when not written at top level: "bash -c", "find -exec", "xargs", "eval". */
  via?: string;
  /** A shell builtin that runs no program (`cd`, `exit`, `true`): needs no rule, its paths are still checked. */
  control?: true;
  /**
   * The words the program gets, braces expanded; null where bash decides the word when it runs
   * (a variable, a glob that could match a file named like an option, xargs' input).
   */
  argv: (string | null)[];
}

export interface CommandAnalysis {
  commands: AnalysedCommand[];
  /** Redirect targets and path operands, in source order: what each reads or writes. */
  paths: PathRef[];
  /** Every folder a `cd`, `pushd` or `env -C` may move to, as written. */
  cds: Word[];
  /** Reasons the whole input can never be allowed (unparsable, CR, odd whitespace). */
  problems: string[];
}

const MAX_DEPTH = 4;
const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'yash', 'busybox']);
const CONTROL = new Set(['cd', 'pushd', 'popd', 'exit', 'return', 'true', 'false', ':', 'break', 'continue', 'shift', 'wait', 'set']);
const DYNAMIC = new Set(['eval', 'exec', 'source', '.', 'trap', 'alias', 'enable', 'hash', 'fc', 'bind', 'complete', 'coproc', 'shopt', 'parallel', 'watch', 'script', 'flock']);
// eslint-disable-next-line no-control-regex
const ODD_CHARS = /[\r\v\f\u0085\u00a0\u1680\u180e\u2000-\u200b\u2028\u2029\u202f\u205f\u3000\ufeff\x00-\x08\x0e-\x1f\x7f]/;

interface Walk {
  out: CommandAnalysis;
  depth: number;
  via?: string;
  parse: (source: string, fn: (root: BashNode) => void) => void;
}

/** What rules match: each word as bash passes it, braces expanded (`rm -rf {/,x}` is `rm -rf / x`). */
const textOf = (args: Arg[]) => args.filter((a) => !a.hidden).flatMap(braceWords).join(' ');

function braceWords(a: Arg): string[] {
  if (a.value === null || !a.word || !isKnown(a.word)) return [a.value ?? a.raw];
  const words = expandBraces(a.word.pattern);
  return words && words.length > 1 ? words.map(unescape) : [a.value];
}
/** The words a program receives, as far as they are known before it runs. */
const argvOf = (args: Arg[]): (string | null)[] => args.flatMap((a) => (a.hidden || a.glob || a.value === null ? [null] : braceWords(a)));

/** An operand the command gets at run time (from xargs' input, find's matches). */
const runtimeArg = (raw: string, why: string, hidden = false): Arg => ({ value: raw, raw, word: unknownWord(raw, why), ...(hidden ? { hidden: true as const } : {}) });

function describeChar(c: string): string {
  return c === '\r' ? 'a carriage return' : `the character U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

export async function analyseCommand(source: string): Promise<CommandAnalysis> {
  const parser = await bashParser();
  const out: CommandAnalysis = { commands: [], paths: [], cds: [], problems: [] };
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
      push(w, { text: node.text.split('\n')[0], dynamic: `it defines the function ${node.childForFieldName('name')?.text ?? ''}, which can shadow any command`, argv: [null] });
      break;
    case 'variable_assignment':
      if (node.parent?.type !== 'command') checkAssignment(node, w);
      break;
    case 'for_statement': {
      // `for PATH in /tmp/evil; do git status; done` assigns as surely as PATH=… does.
      const risky = riskyAssignment(node.childForFieldName('variable')?.text ?? '');
      if (risky) push(w, { text: node.text.split('\n')[0], dynamic: `it ${risky}`, argv: [null] });
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
  if (risky) push(w, { text: node.text, dynamic: `it ${risky}`, argv: [null] });
}

function onRedirect(node: BashNode, w: Walk): void {
  const dest = node.childForFieldName('destination');
  if (!dest) return;
  const op = node.children.find((c) => /^[<>&|]+$/.test(c.type))?.type ?? '';
  const target = redirectTarget(node, dest);
  // `2>&1`, `>&-`: duplicating or closing a descriptor, not a file.
  if ((op === '>&' || op === '<&') && target.length === 1 && (dest.type === 'number' || dest.text === '-')) return;
  const reads = op === '<' || op === '<&';
  const a = groupArg(target);
  w.out.paths.push({ word: a.word!, raw: a.raw, by: 'redirect', write: !reads, ...(reads ? { read: true } : {}) });
}

const LITERALS = new Set([
  'word',
  'string',
  'raw_string',
  'concatenation',
  'simple_expansion',
  'expansion',
  'command_substitution',
  'process_substitution',
  'arithmetic_expansion',
  'number',
  'ansi_c_string',
  'translated_string',
  'brace_expression',
]);

/**
 * Nodes that touch (no space between) are one word to bash, though the grammar sometimes
 * splits them (`{a,b}\x`, `x}\*`): group them back.
 */
function adjacentGroups(nodes: BashNode[]): BashNode[][] {
  const groups: BashNode[][] = [];
  for (const n of nodes) {
    const last = groups[groups.length - 1];
    if (last && last[last.length - 1].endIndex === n.startIndex) last.push(n);
    else groups.push([n]);
  }
  return groups;
}

function groupArg(group: BashNode[]): Arg {
  const raw = group.map((n) => n.text).join('');
  const values = group.map(staticWord);
  const value = values.includes(null) ? null : values.join('');
  return { value, raw, word: wordOfNodes(group), ...(group.some(hasGlob) ? { glob: true as const } : {}) };
}

/** The redirect's target: its first destination and whatever touches it. */
function redirectTarget(node: BashNode, dest: BashNode): BashNode[] {
  const words = node.children.filter((c) => LITERALS.has(c.type) && c.startIndex >= dest.startIndex);
  return adjacentGroups(words)[0] ?? [dest];
}

/** Words the grammar put inside a redirect that bash gives the command (`rm 2>/dev/null -rf /`). */
function wordsAfterRedirects(node: BashNode): BashNode[][] {
  // The grammar hangs a redirect written after the last command of `a && b 2>x c` on the whole
  // list; bash gives it, and the words after it, to that last command.
  let body = node;
  while (body.parent && ['list', 'pipeline', 'negated_command'].includes(body.parent.type) && body.parent.lastNamedChild?.id === body.id) body = body.parent;
  const parent = body.parent;
  if (parent?.type !== 'redirected_statement' || parent.childForFieldName('body')?.id !== body.id) return [];
  const extra: BashNode[][] = [];
  const visitRedirect = (r: BashNode): void => {
    if (r.type === 'file_redirect') {
      const dest = r.childForFieldName('destination');
      if (!dest) return;
      const groups = adjacentGroups(r.children.filter((c) => LITERALS.has(c.type) && c.startIndex >= dest.startIndex));
      extra.push(...groups.slice(1));
    } else if (r.type === 'heredoc_redirect' || r.type === 'herestring_redirect') {
      const words = r.children.filter((c) => LITERALS.has(c.type));
      extra.push(...adjacentGroups(words).slice(r.type === 'herestring_redirect' ? 1 : 0));
      if (r.type === 'heredoc_redirect') r.children.forEach(visitRedirect);
    }
  };
  parent.children.forEach(visitRedirect);
  return extra;
}

function onCommand(node: BashNode, w: Walk): void {
  let dynamic: string | null = null;
  const words: BashNode[] = [];
  node.children.forEach((c, i) => {
    const field = node.fieldNameForChild(i);
    if (c.type === 'variable_assignment') {
      const risky = riskyAssignment(c.childForFieldName('name')?.text ?? '');
      if (risky) dynamic ??= `it ${risky}`;
    } else if (field === 'name') {
      words.push(c.firstNamedChild ?? c);
    } else if (field === 'argument') {
      words.push(c);
    }
  });
  let args = [...adjacentGroups(words), ...wordsAfterRedirects(node)].map(groupArg);
  // `{cat,.env}` runs `cat .env`: a command name that braces split is that many words.
  if (args[0] && !args[0].glob && braceWords(args[0]).length > 1) {
    args = [...braceWords(args[0]).map((v): Arg => ({ value: v, raw: v, word: literalWord(v) })), ...args.slice(1)];
  }
  if (args[0] && (args[0].value === null || args[0].glob)) {
    dynamic ??= `its command name ${args[0].raw} is only known when it runs`;
    args[0] = { ...args[0], value: null };
  }
  runArgs(args, dynamic, w);
}

/** Applies wrappers, special forms and path extraction to one command's words. */
function runArgs(input: Arg[], dynamicIn: string | null, w: Walk): void {
  const { args, dynamic: wrapDynamic, chdir, writes } = unwrap(input);
  for (const c of chdir) w.out.cds.push(c.word ?? literalWord(c.value ?? c.raw));
  for (const f of writes) w.out.paths.push({ word: f.word ?? literalWord(f.value ?? f.raw), raw: f.raw, by: 'time -o', write: true });
  let dynamic = dynamicIn ?? wrapDynamic;
  const name = args[0]?.value ?? null;
  const base = name === null ? null : path.basename(name);
  if (name === null && !dynamic) dynamic = `its command name ${args[0]?.raw ?? ''} is only known when it runs`;
  if (base !== null && DYNAMIC.has(base)) dynamic ??= `${base} runs code that is only known when it runs`;

  if (base !== null && SHELLS.has(base) && !dynamic && args.some((a) => /^([-+][a-zA-Z]*O|--rcfile|--init-file)/.test(a.value ?? ''))) {
    dynamic = `${base} is given shell options or start-up files that change how it expands words and what it runs`;
  }
  if (base !== null && SHELLS.has(base) && !dynamic) {
    const script = shellScript(args);
    if (script === undefined) {
      // A shell reading a script file: an ordinary command. Reading its program from its input
      // (`bash <<EOF`, `sh -s`), what it writes is decided by that input.
      if (readsStdin(args)) w.out.paths.push({ word: unknownWord(base, 'the script comes from its input'), raw: base, by: base, write: true });
    } else if (script === null) {
      dynamic = `${base} -c is given a script that is only known when it runs`;
    } else {
      return nested(script, `${base} -c`, w);
    }
  }
  const command: AnalysedCommand = { text: textOf(args), dynamic, argv: argvOf(args) };
  if (base !== null && CONTROL.has(base) && !dynamic) command.control = true;
  if (base === 'cd' || base === 'pushd') w.out.cds.push(cdTarget(args));
  if (base === 'git') gitChdir(args, w);
  const targets = base === null ? { refs: [] } : languageTargets(base, args);
  if (targets.dynamic) command.dynamic ??= targets.dynamic;
  push(w, command);

  if (base === 'eval' && args.slice(1).every((a) => a.value !== null)) nested(args.slice(1).map((a) => a.value).join(' '), 'eval', w);
  if (base === 'exec' && args.length > 1) runArgs(args.slice(1), null, { ...w, via: 'exec' });
  if (base === 'find') {
    findExec(args, w);
    findWrites(args, w);
  }
  if (base === 'xargs') xargsCommand(args, w);
  if (base !== null) w.out.paths.push(...operandRefs(base, args), ...targets.refs);
}

/** Where `cd`/`pushd` goes: `cd` alone is home, `cd -` and `pushd +N` a folder we never saw. */
function cdTarget(args: Arg[]): Word {
  const operands = args.slice(1).filter((a) => !/^-[LPe@]*$/.test(a.value ?? 'x') || a.value === '-');
  const last = operands[operands.length - 1];
  if (!last) return literalWord('~');
  if (last.value === '-' || /^[+-]\d+$/.test(last.value ?? '')) return unknownWord(last.raw, 'it returns to an earlier folder');
  return last.word ?? literalWord(last.value ?? last.raw);
}

/** `git -C dir …` works in dir: count it as a folder the command line may be in. */
function gitChdir(args: Arg[], w: Walk): void {
  for (let i = 1; i < args.length - 1; i++) {
    const v = args[i].value;
    if (v === '-C') w.out.cds.push(args[i + 1].word ?? literalWord(args[i + 1].value ?? args[i + 1].raw));
    else if (v === null || !v.startsWith('-')) return;
  }
}

/** The script of `sh -c script`: undefined when there is no -c, null when it is not static. */
function shellScript(args: Arg[]): string | null | undefined {
  for (let i = 1; i < args.length; i++) {
    const v = args[i].value;
    if (v === null) return null;
    // `-o pipefail`, `+o posix`: a set option and its value.
    if (v === '-o' || v === '+o') {
      i++;
      continue;
    }
    if (v.startsWith('+')) continue;
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

function readsStdin(args: Arg[]): boolean {
  for (let i = 1; i < args.length; i++) {
    const v = args[i].value ?? '';
    if (v === '-o' || v === '+o') i++;
    else if (v === '-' || /^-[a-zA-Z]*s/.test(v)) return true;
    else if (v === '--') return i + 1 >= args.length;
    else if (!v.startsWith('-') && !v.startsWith('+')) return false;
  }
  return true;
}

function nested(script: string, via: string, w: Walk): void {
  if (w.depth >= MAX_DEPTH) {
    push(w, { text: script, dynamic: `${via} is nested too deeply to follow`, argv: [null] });
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
    const inner = args.slice(i + 1, end).map((a) => (a.value?.includes('{}') ? runtimeArg(a.value, 'a path find finds') : a));
    if (end > i + 1) runArgs(inner, null, { ...w, via: 'find -exec' });
    i = end;
  }
}

/** find's own writes: -delete under each start folder, -fprint and friends to a named file. */
function findWrites(args: Arg[], w: Walk): void {
  const starts: Arg[] = [];
  let i = 1;
  for (; i < args.length; i++) {
    const v = args[i].value;
    if (v !== null && (v.startsWith('-') || v === '(' || v === '!')) break;
    if (!['-H', '-L', '-P'].includes(v ?? '')) starts.push(args[i]);
  }
  if (!starts.length) starts.push({ value: '.', raw: '.', word: literalWord('.') });
  for (; i < args.length; i++) {
    const v = args[i].value;
    if (v === '-delete') for (const s of starts) w.out.paths.push({ word: s.word ?? literalWord(s.value ?? s.raw), raw: s.raw, by: 'find -delete', write: true, beneath: true });
    if (v !== null && /^-f(print0?|printf|ls)$/.test(v) && args[i + 1]) {
      const f = args[i + 1];
      w.out.paths.push({ word: f.word ?? literalWord(f.value ?? f.raw), raw: f.raw, by: `find ${v}`, write: true });
    }
  }
}

const XARGS_WITH_VALUE = new Set(['-I', '-n', '-P', '-L', '-d', '-E', '-s', '-a', '--max-args', '--max-procs', '--delimiter', '--arg-file', '--replace', '--eof', '--max-lines', '--max-chars']);

function xargsCommand(args: Arg[], w: Walk): void {
  let i = 1;
  while (i < args.length) {
    const v = args[i].value;
    // `-a file` reads its arguments from a file, and passes its content on.
    const file = v === '-a' || v === '--arg-file' ? args[i + 1] : v?.startsWith('--arg-file=') || /^-a./.test(v ?? '') ? args[i] : null;
    if (file) {
      const prefix = file === args[i] ? v!.slice(0, v!.startsWith('--') ? v!.indexOf('=') + 1 : 2) : '';
      w.out.paths.push({ word: file.word ?? literalWord(file.value ?? file.raw), raw: file.raw, by: 'xargs', write: false, read: true, ...(prefix ? { prefix } : {}) });
    }
    if (v === null) return runArgs([args[i]], null, { ...w, via: 'xargs' });
    if (v === '--') {
      i++;
      break;
    }
    if (!v.startsWith('-')) break;
    i += XARGS_WITH_VALUE.has(v) ? 2 : 1;
  }
  if (i >= args.length) return;
  // What xargs reads becomes arguments: `-I` puts it where the marker is, else at the end.
  const marker = replaceString(args.slice(1, i));
  const inner = marker ? args.slice(i).map((a) => (a.value?.includes(marker) ? runtimeArg(a.value, 'it comes from the input of xargs') : a)) : [...args.slice(i), runtimeArg('(input of xargs)', 'it comes from the input of xargs', true)];
  runArgs(inner, null, { ...w, via: 'xargs' });
}

function replaceString(opts: Arg[]): string | null {
  for (let i = 0; i < opts.length; i++) {
    const v = opts[i].value ?? '';
    if (v === '-I' || v === '--replace') return opts[i + 1]?.value ?? '{}';
    if (v.startsWith('-I')) return v.slice(2);
    if (v === '-i' || v.startsWith('--replace=')) return v.slice(10) || '{}';
  }
  return null;
}
