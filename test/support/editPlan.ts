// Generated files and edits for the edit pipeline's property tests (test/editInvariant and
// test/editSlips): files with mixed indentation, mixed line endings, a BOM, trailing blanks and
// blank lines, every line holding its own token (so every match is unique); an edit planned
// line by line; and the check that the file after an edit is exactly the plan: kept lines keep
// their bytes, new lines have the planned text, and the edit invariant holds.
import fc from 'fast-check';
import { editInvariantViolations } from '../../src/main/services/modlog/editInvariant';
import { splitKeepingEols } from '../../src/main/services/modlog/unifiedDiff';

export interface Line {
  indent: string;
  body: string;
  trail: string;
  eol: string;
}

export interface FileSpec {
  bom: boolean;
  lines: Line[];
  finalNewline: boolean;
}

const INDENTS = ['', '', '  ', '    ', '\t', '\t\t', '\t  ', '  \t', '        '];
const TRAILS = ['', '', '', ' ', '\t', '  '];
const WORDS = ['x', 'foo', '(a)', '= 1', 'b"c"', "d'e'", 'f-g', 'return', '{', '}', 'h i'];
const FANCY = ['\u201Cq\u201D', '\u2018s\u2019', 'a\u2013b', 'c\u2014d', 'e\u00A0f'];

/**
 * One line drawn as a single integer, each field a digit of it in its own base: generating a
 * record of five arbitraries per line cost more than the edit under test. Shrinks toward a
 * blank unindented line, as the record did.
 */
const lineArb = (fancy: boolean) => {
  const words = fancy ? [...WORDS, ...FANCY] : WORDS;
  return fc.nat().map((x) => {
    const digit = (base: number) => {
      const d = x % base;
      x = Math.floor(x / base);
      return d;
    };
    const blank = digit(6) === 0;
    const indent = INDENTS[digit(INDENTS.length)];
    const trail = TRAILS[digit(TRAILS.length)];
    const eol = digit(2) ? '\r\n' : '\n';
    const count = digit(4);
    return { blank, indent, trail, eol, words: Array.from({ length: count }, () => words[digit(words.length)]) };
  });
};

export const fileArb = (fancy = false, size: { minLines?: number; maxLines?: number } = {}): fc.Arbitrary<FileSpec> =>
  fc.record({ bom: fc.boolean(), raw: fc.array(lineArb(fancy), { minLength: size.minLines ?? 1, maxLength: size.maxLines ?? 12 }), finalNewline: fc.boolean(), eols: fc.constantFrom('lf', 'crlf', 'mixed') }).map(({ bom, raw, finalNewline, eols }) => ({
    bom,
    // An empty last line without a line break is no line at all.
    finalNewline: finalNewline || (raw[raw.length - 1].blank && !raw[raw.length - 1].indent && !raw[raw.length - 1].trail),
    // Each line's own token keeps every line, and so every match, unique.
    lines: raw.map((l, i) => ({
      indent: l.indent,
      body: l.blank ? '' : [`v${i}_`, ...l.words].join(' '),
      trail: l.trail,
      eol: eols === 'lf' ? '\n' : eols === 'crlf' ? '\r\n' : l.eol,
    })),
  }));

export const textOfLine = (l: Line) => l.indent + l.body + l.trail;
export const isBlank = (l: Line) => l.body === '';
const eolOf = (f: FileSpec, i: number) => (i < f.lines.length - 1 || f.finalNewline ? f.lines[i].eol : '');
export const render = (f: FileSpec) => (f.bom ? '\uFEFF' : '') + f.lines.map((l, i) => textOfLine(l) + eolOf(f, i)).join('');

/** One line of the span after the edit: an original line kept as it is, or new text. */
export type Planned = { keep: number } | { text: string };

export interface EditSpec {
  a: number;
  b: number;
  planned: Planned[];
  /** old_str (and new_str) end with the span's last line break. */
  withNewline: boolean;
}

export const editArb = fc.record({
  aSeed: fc.nat(),
  lenSeed: fc.nat(),
  ops: fc.array(fc.constantFrom('keep', 'keep', 'change', 'delete'), { minLength: 6, maxLength: 6 }),
  inserts: fc.array(fc.nat(6), { maxLength: 2 }),
  withNewline: fc.boolean(),
});

type EditSeed = { aSeed: number; lenSeed: number; ops: string[]; inserts: number[]; withNewline: boolean };

/** Lines a..b the seed picks, at least `minSpan` of them (fewer when the file is shorter). */
export function spanOf(f: FileSpec, e: Pick<EditSeed, 'aSeed' | 'lenSeed'>, minSpan = 1): { a: number; b: number } {
  const n = f.lines.length;
  const min = Math.min(minSpan, n);
  const a = e.aSeed % (n - min + 1);
  return { a, b: a + min - 1 + (e.lenSeed % (Math.min(6, n - a) - min + 1)) };
}

/** The file with the given lines holding text where they were blank (each its own token). */
export function filled(f: FileSpec, at: number[]): FileSpec {
  return { ...f, lines: f.lines.map((l, i) => (at.includes(i) && isBlank(l) ? { ...l, body: `v${i}_` } : l)) };
}

export function planEdit(f: FileSpec, e: EditSeed, minSpan = 1): EditSpec | null {
  const { a, b } = spanOf(f, e, minSpan);
  const span = f.lines.slice(a, b + 1);
  if (span.every(isBlank)) return null;
  const firstBody = span.find((l) => !isBlank(l))!;
  const ops = [...e.ops];
  if (ops.slice(0, span.length).every((o) => o === 'keep') && e.inserts.length === 0) ops[0] = 'change';
  const planned: Planned[] = [];
  span.forEach((l, k) => {
    const i = a + k;
    e.inserts.filter((p) => p === k).forEach((_, m) => planned.push({ text: `${firstBody.indent}m${i}_${m} new` }));
    if (ops[k] === 'keep') planned.push({ keep: i });
    else if (ops[k] === 'change') planned.push({ text: `${isBlank(l) ? firstBody.indent : l.indent}n${i}_ ${l.body.split(' ').slice(1).join(' ')}x`.trimEnd() });
  });
  e.inserts.filter((p) => p >= span.length).forEach((_, m) => planned.push({ text: `${firstBody.indent}m${b}_end${m} new` }));
  return finishPlan(f, a, b, planned, e.withNewline);
}

/** A plan for lines a..b, or null when old_str or new_str would read two ways (the cases below). */
export function finishPlan(f: FileSpec, a: number, b: number, planned: Planned[], wantNewline: boolean): EditSpec | null {
  const n = f.lines.length;
  const canEndWithNewline = b < n - 1 || f.finalNewline;
  let withNewline = wantNewline && canEndWithNewline;
  // An old_str ending mid-span-line with nothing to put there reads as "join the next line".
  if (planned.length === 0 || isBlank(f.lines[b])) withNewline = canEndWithNewline;
  if (planned.length === 0 && !withNewline) return null;
  if (isBlank(f.lines[b]) && !withNewline) return null;
  // new_str ending in an empty line where the file ends without a line break reads both ways.
  const lastPlanned = planned[planned.length - 1];
  if (b === n - 1 && !f.finalNewline && lastPlanned && ('keep' in lastPlanned ? textOfLine(f.lines[lastPlanned.keep]) : lastPlanned.text) === '') return null;
  return { a, b, planned, withNewline };
}

/** old_str and new_str as a model that copied the file faithfully would send them (LF). */
export function faithful(f: FileSpec, e: EditSpec): { oldLines: string[]; newLines: string[] } {
  return {
    oldLines: f.lines.slice(e.a, e.b + 1).map(textOfLine),
    newLines: e.planned.map((p) => ('keep' in p ? textOfLine(f.lines[p.keep]) : p.text)),
  };
}

export const join = (lines: string[], e: EditSpec, sep = '\n') => (lines.length ? lines.join(sep) + (e.withNewline ? sep : '') : '');

/**
 * old_str's and new_str's lines indented otherwise, as a model that lost or added indentation
 * would send them: tabs as spaces, the common indentation dropped, or some added (whichever
 * leaves old_str absent from the file as it stands).
 */
export function reindented(f: FileSpec, e: EditSpec, l: { oldLines: string[]; newLines: string[] }): { oldLines: string[]; newLines: string[] } {
  const body = [...l.oldLines, ...l.newLines].filter((x) => x.trim());
  const tabsOnly = body.every((x) => /^\t*[^\s]/.test(x));
  const common = body.map(lead).reduce((p, c) => {
    let k = 0;
    while (k < p.length && p[k] === c[k]) k++;
    return p.slice(0, k);
  });
  const mode = (e.a * 7 + e.b) % 3;
  const add = (x: string) => ['  ', '\t', '    '][e.b % 3] + x;
  let shift: (x: string) => string;
  if (mode === 0 && tabsOnly && body.some((x) => x.startsWith('\t'))) shift = (x) => x.replace(/^\t+/, (t) => '    '.repeat(t.length));
  else if (mode === 1 && common) shift = (x) => x.slice(common.length);
  else shift = add;
  const apply = (xs: string[], fn: (x: string) => string) => xs.map((x) => (x.trim() ? fn(x) : x));
  // A stripped old_str that is still a substring of the file is an exact match of a part of a line.
  if (render(f).replace(/\r\n/g, '\n').includes(join(apply(l.oldLines, shift), e))) shift = add;
  return { oldLines: apply(l.oldLines, shift), newLines: apply(l.newLines, shift) };
}

/** The leading blanks of a line. */
export const lead = (s: string) => /^[ \t]*/.exec(s)![0];

const lineText = (line: string) => line.replace(/\r?\n$/, '');

/** The file after the edit, line by line, as the plan says it must be: bytes where a line is kept, text where it is new. */
export function checkAgainstPlan(f: FileSpec, e: EditSpec, after: string, norm: (s: string) => string): string | null {
  const before = render(f);
  if (after.startsWith('\uFEFF') !== f.bom) return 'BOM changed';
  const got = splitKeepingEols(f.bom ? after.slice(1) : after);
  const want: ({ bytes: string; last: boolean; alt?: string[] } | { text: string })[] = [];
  const orig = (i: number) => ({ bytes: textOfLine(f.lines[i]) + eolOf(f, i), last: i === f.lines.length - 1 });
  for (let i = 0; i < e.a; i++) want.push(orig(i));
  // Lines of equal text (as the strategy reads it) are interchangeable: which of two blank lines
  // was deleted is not in the strings.
  const twins = (i: number) => f.lines.map((l, k) => ({ l, k })).filter(({ l, k }) => k >= e.a && k <= e.b && norm(textOfLine(l)) === norm(textOfLine(f.lines[i]))).map(({ k }) => orig(k).bytes);
  for (const p of e.planned) want.push('keep' in p ? { ...orig(p.keep), alt: twins(p.keep) } : { text: p.text });
  for (let i = e.b + 1; i < f.lines.length; i++) want.push(orig(i));
  if (got.length !== want.length) return `${got.length} lines after the edit, ${want.length} planned`;
  for (let j = 0; j < want.length; j++) {
    const w = want[j];
    const g = got[j];
    const isLast = j === got.length - 1;
    if ('bytes' in w) {
      if (g === w.bytes || w.alt?.includes(g)) continue;
      // The final-newline rule: the last line gains or loses its break as lines follow it or stop.
      if (lineText(g) === lineText(w.bytes) && ((w.last && lineText(w.bytes) === w.bytes) || (isLast && lineText(g) === g && !f.finalNewline))) continue;
      return `line ${j + 1}: want ${JSON.stringify(w.bytes)}, got ${JSON.stringify(g)}`;
    }
    if (norm(lineText(g)) !== norm(w.text)) return `line ${j + 1}: want text ${JSON.stringify(w.text)}, got ${JSON.stringify(g)}`;
    if (!isLast && lineText(g) === g) return `line ${j + 1} lost its line break`;
  }
  // Deleting the last lines of a file without a final line break takes the break of the line before.
  const first = e.b === f.lines.length - 1 && !f.finalNewline && e.planned.length === 0 && e.a > 0 ? e.a : e.a + 1;
  const problems = editInvariantViolations(before, after, [{ first, last: e.b + 1 }]);
  return problems.length ? problems.join('; ') : null;
}

