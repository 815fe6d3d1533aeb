// Line-based edits of code_modify: 1-based inclusive ranges, worked on
// lines that keep their own terminators, so CRLF, LF, mixed endings, a BOM and a missing
// final newline survive wherever the edit did not reach.
import { InvalidArgumentError } from '../../errors';
import { EditInvariantError, editInvariantViolations, type LineSpan } from './editInvariant';
import { alignLines, endingsFor } from './lineAlign';
import { splitKeepingEols } from './unifiedDiff';

export type LineOperation = 'replace' | 'insert_before' | 'insert_after' | 'delete';

export interface LineEdit {
  operation: LineOperation;
  /** replace/delete: first and last line (inclusive). */
  range?: [number, number];
  /** insert_before/insert_after: the anchor line (insert_after 0 inserts at the top). */
  line?: number;
  content?: string;
}

export interface LineEditResult {
  text: string;
  linesChanged: number;
  /** Lines of the new file the edit produced (for delete: where the removed lines were). */
  linesAffected: [number, number];
  warnings: string[];
}

const BOM = '\uFEFF';
const eolOf = (line: string): string => (line.endsWith('\r\n') ? '\r\n' : line.endsWith('\n') ? '\n' : '');
const strip = (line: string): string => line.slice(0, line.length - eolOf(line).length);
const indentOf = (line: string): string => /^[ \t]*/.exec(line)![0];

function majorityEol(lines: string[]): string {
  const crlf = lines.filter((l) => l.endsWith('\r\n')).length;
  return crlf * 2 > lines.filter((l) => l.endsWith('\n')).length ? '\r\n' : '\n';
}

/** Unindented new content takes the target line's indentation; relative indentation is kept. */
export function indentLike(content: string[], target: string): string[] {
  const first = content.find((l) => l.trim() !== '');
  const indent = indentOf(target);
  if (first === undefined || indentOf(first) !== '' || indent === '') return content;
  return content.map((l) => (l.trim() === '' ? l : indent + l));
}

/** Net open-minus-close count per bracket kind; strings and comments are not parsed (no AST). */
export function bracketBalance(text: string): Record<string, number> {
  const net: Record<string, number> = { '()': 0, '[]': 0, '{}': 0 };
  for (const ch of text) {
    if (ch === '(' || ch === ')') net['()'] += ch === '(' ? 1 : -1;
    else if (ch === '[' || ch === ']') net['[]'] += ch === '[' ? 1 : -1;
    else if (ch === '{' || ch === '}') net['{}'] += ch === '{' ? 1 : -1;
  }
  return net;
}

function balanceWarnings(before: string, after: string): string[] {
  const b = bracketBalance(before);
  const a = bracketBalance(after);
  return Object.keys(a)
    .filter((k) => a[k] !== b[k] && a[k] !== 0)
    .map((k) => `The ${k} brackets no longer balance (${a[k] > 0 ? `${a[k]} more '${k[0]}'` : `${-a[k]} more '${k[1]}'`} than their pairs); check the edit.`);
}

function checkLine(n: number | undefined, min: number, max: number, what: string): number {
  if (n === undefined || !Number.isInteger(n)) throw new InvalidArgumentError(`${what} is required and must be a whole line number.`);
  if (n < min || n > max) throw new InvalidArgumentError(`${what} ${n} is out of range: the file has ${max === 0 ? 'no lines' : `lines 1-${max}`}${min === 0 ? ' (0 inserts at the top)' : ''}. Read the file again for current line numbers.`);
  return n;
}

function contentLines(content: string | undefined, op: LineOperation): string[] {
  if (content === undefined || content === '') throw new InvalidArgumentError(`${op} needs new_content${op === 'replace' ? '; to remove lines use operation "delete"' : ''}.`);
  const lf = content.split('\r\n').join('\n');
  return (lf.endsWith('\n') ? lf.slice(0, -1) : lf).split('\n');
}

/** `rel` names the file in a refusal. */
export function applyLineEdit(raw: string, edit: LineEdit, rel = 'the file'): LineEditResult {
  const bom = raw.startsWith(BOM) ? BOM : '';
  const lines = splitKeepingEols(raw.slice(bom.length));
  const n = lines.length;
  const fileEol = majorityEol(lines);
  const noFinalEol = n > 0 && eolOf(lines[n - 1]) === '';
  let start: number;
  let removed = 0;
  let added: string[] = [];
  if (edit.operation === 'replace' || edit.operation === 'delete') {
    const [a, b] = edit.range ?? (edit.line !== undefined ? [edit.line, edit.line] : [undefined, undefined]);
    checkLine(a, 1, n, 'line_range start');
    checkLine(b, a!, n, 'line_range end');
    start = a! - 1;
    removed = b! - a! + 1;
  } else {
    const anchor = edit.line ?? edit.range?.[0];
    start = edit.operation === 'insert_before' ? checkLine(anchor, n === 0 ? 0 : 1, Math.max(n, 1), 'line') - 1 : checkLine(anchor, 0, n, 'line');
    start = Math.max(0, start);
  }
  if (edit.operation !== 'delete') {
    const target = lines[edit.operation === 'insert_after' ? Math.max(0, start - 1) : start] ?? '';
    const content = indentLike(contentLines(edit.content, edit.operation), strip(target));
    // A replaced line keeps its own ending when its text stays, else takes the ending of the
    // line it replaces; an inserted one takes its neighbour's.
    const replaced = lines.slice(start, start + removed);
    const eols = endingsFor(alignLines(replaced.map(strip), content), replaced.map(eolOf), eolOf(target) || fileEol);
    added = content.map((l, i) => l + eols[i]);
  }
  const original = lines.join('');
  // The lines this edit may touch, for the invariant check below.
  const span: LineSpan = { first: start + 1, last: start + removed, count: added.length };
  // Keep "no newline at end of file": the line that ends up last has no terminator.
  if (noFinalEol && start + removed === n) {
    if (added.length) {
      const eol = eolOf(added[0]) || fileEol;
      added[added.length - 1] = strip(added[added.length - 1]);
      if (removed === 0 && start > 0) {
        lines[start - 1] += eol;
        Object.assign(span, { first: start, count: added.length + 1 });
      }
    } else if (start > 0) {
      lines[start - 1] = strip(lines[start - 1]);
      // An empty line without its break is no line at all.
      Object.assign(span, { first: start, count: lines[start - 1] === '' ? 0 : 1 });
    }
  }
  lines.splice(start, removed, ...added);
  const after = lines.join('');
  const problems = editInvariantViolations(raw, bom + after, [span]);
  if (problems.length) throw new EditInvariantError(rel, problems, 'This is a fault in code_modify, not in your request; read the file again and retry.');
  const first = start + 1;
  return {
    text: bom + after,
    linesChanged: Math.max(removed, added.length),
    linesAffected: added.length ? [first, first + added.length - 1] : [first, first + removed - 1],
    warnings: balanceWarnings(original, after),
  };
}
