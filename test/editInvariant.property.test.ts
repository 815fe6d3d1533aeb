// Generated files (mixed indentation, mixed line endings, BOM, trailing blanks, blank lines) and
// generated edits that each recovery strategy must carry out: old_str re-indented, stripped,
// `cat -n`-prefixed, with plain quotes for typographic ones, with the other line ending,
// escaped, padded with blank lines. Every edit must apply, change exactly what it was asked to
// change, and keep the invariant: outside its lines the file is byte-identical, inside them a
// line whose text stays keeps its bytes. code_modify's line edits are held to the same.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { editText } from '../src/main/agent/edit/testing';
import { plainTypography } from '../src/main/agent/edit/strategies/typography';
import { editInvariantViolations } from '../src/main/services/modlog/editInvariant';
import { applyLineEdit } from '../src/main/services/modlog/lineEdit';
import { splitKeepingEols } from '../src/main/services/modlog/unifiedDiff';

const RUNS = 10_000;

interface Line {
  indent: string;
  body: string;
  trail: string;
  eol: string;
}

interface FileSpec {
  bom: boolean;
  lines: Line[];
  finalNewline: boolean;
}

const INDENTS = ['', '', '  ', '    ', '\t', '\t\t', '\t  ', '  \t', '        '];
const TRAILS = ['', '', '', ' ', '\t', '  '];
const WORDS = ['x', 'foo', '(a)', '= 1', 'b"c"', "d'e'", 'f-g', 'return', '{', '}', 'h i'];
const FANCY = ['\u201Cq\u201D', '\u2018s\u2019', 'a\u2013b', 'c\u2014d', 'e\u00A0f'];

const lineArb = (fancy: boolean) =>
  fc.record({
    indent: fc.constantFrom(...INDENTS),
    words: fc.array(fc.constantFrom(...WORDS, ...(fancy ? FANCY : [])), { maxLength: 3 }),
    trail: fc.constantFrom(...TRAILS),
    blank: fc.nat(5).map((n) => n === 0),
    eol: fc.constantFrom('\n', '\r\n'),
  });

const fileArb = (fancy = false): fc.Arbitrary<FileSpec> =>
  fc.record({ bom: fc.boolean(), raw: fc.array(lineArb(fancy), { minLength: 1, maxLength: 12 }), finalNewline: fc.boolean(), eols: fc.constantFrom('lf', 'crlf', 'mixed') }).map(({ bom, raw, finalNewline, eols }) => ({
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

const textOfLine = (l: Line) => l.indent + l.body + l.trail;
const isBlank = (l: Line) => l.body === '';
const eolOf = (f: FileSpec, i: number) => (i < f.lines.length - 1 || f.finalNewline ? f.lines[i].eol : '');
const render = (f: FileSpec) => (f.bom ? '\uFEFF' : '') + f.lines.map((l, i) => textOfLine(l) + eolOf(f, i)).join('');

/** One line of the span after the edit: an original line kept as it is, or new text. */
type Planned = { keep: number } | { text: string };

interface EditSpec {
  a: number;
  b: number;
  planned: Planned[];
  /** old_str (and new_str) end with the span's last line break. */
  withNewline: boolean;
}

const editArb = fc.record({
  aSeed: fc.nat(),
  lenSeed: fc.nat(),
  ops: fc.array(fc.constantFrom('keep', 'keep', 'change', 'delete'), { minLength: 6, maxLength: 6 }),
  inserts: fc.array(fc.nat(6), { maxLength: 2 }),
  withNewline: fc.boolean(),
});

type EditSeed = { aSeed: number; lenSeed: number; ops: string[]; inserts: number[]; withNewline: boolean };

function planEdit(f: FileSpec, e: EditSeed): EditSpec | null {
  const n = f.lines.length;
  const a = e.aSeed % n;
  const b = a + (e.lenSeed % Math.min(6, n - a));
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
  const canEndWithNewline = b < n - 1 || f.finalNewline;
  let withNewline = e.withNewline && canEndWithNewline;
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
function faithful(f: FileSpec, e: EditSpec): { oldLines: string[]; newLines: string[] } {
  return {
    oldLines: f.lines.slice(e.a, e.b + 1).map(textOfLine),
    newLines: e.planned.map((p) => ('keep' in p ? textOfLine(f.lines[p.keep]) : p.text)),
  };
}

const join = (lines: string[], e: EditSpec, sep = '\n') => (lines.length ? lines.join(sep) + (e.withNewline ? sep : '') : '');

type Distortion = (f: FileSpec, e: EditSpec, lines: { oldLines: string[]; newLines: string[] }) => { oldStr: string; newStr: string } | null;

const lead = (s: string) => /^[ \t]*/.exec(s)![0];

/** The distortions, each the slip one strategy exists to recover from. */
const DISTORTIONS: Record<string, { strategy: string; fancy?: boolean; norm?: (s: string) => string; distort: Distortion }> = {
  exact: { strategy: 'exact', distort: (_f, e, l) => ({ oldStr: join(l.oldLines, e), newStr: join(l.newLines, e) }) },
  'crlf-swapped': {
    strategy: 'exact',
    distort: (f, e, l) => {
      const sep = f.lines[e.a].eol === '\n' ? '\r\n' : '\n';
      return { oldStr: join(l.oldLines, e, sep), newStr: join(l.newLines, e, sep) };
    },
  },
  'line-number-prefix': {
    strategy: 'line-number-prefix',
    distort: (_f, e, l) => {
      const arrow = (e.a + e.b) % 2 === 0;
      const prefix = (i: number) => (arrow ? `${String(i).padStart(6)}\u2192` : `${String(i).padStart(6)}\t`);
      if (e.withNewline) return null;
      return { oldStr: l.oldLines.map((x, k) => prefix(e.a + 1 + k) + x).join('\n'), newStr: l.newLines.map((x, k) => prefix(e.a + 1 + k) + x).join('\n') };
    },
  },
  'trailing-whitespace': {
    strategy: 'trailing-whitespace',
    norm: (s) => s.replace(/[ \t]+$/gm, ''),
    // Without a final line break the last line is copied whole: "foo" for "foo\t" is an exact
    // match of a prefix, and exact matches mean what they say.
    distort: (f, e, l) => {
      // A blank first line stripped to nothing would make old_str start at the line break before it.
      const whole = new Set([...(e.withNewline ? [] : [l.oldLines[l.oldLines.length - 1]]), ...(l.oldLines[0].trim() ? [] : [l.oldLines[0]])]);
      const strip = (xs: string[]) => xs.map((x) => (whole.has(x) ? x : x.trimEnd()));
      const newLast = strip(l.newLines)[l.newLines.length - 1];
      // A last line stripped to nothing reads as the end of the line before it.
      if (newLast === '' && ((e.b === f.lines.length - 1 && !f.finalNewline) || !e.withNewline)) return null;
      return { oldStr: join(strip(l.oldLines), e), newStr: join(strip(l.newLines), e) };
    },
  },
  typography: {
    strategy: 'typography',
    fancy: true,
    norm: plainTypography,
    distort: (_f, e, l) => ({ oldStr: join(l.oldLines.map(plainTypography), e), newStr: join(l.newLines.map(plainTypography), e) }),
  },
  indentation: {
    strategy: 'indentation',
    distort: (f, e, l) => {
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
      return { oldStr: join(apply(l.oldLines, shift), e), newStr: join(apply(l.newLines, shift), e) };
    },
  },
  'blank-lines': {
    strategy: 'blank-lines',
    distort: (f, e, l) => {
      // Blank lines at the edges are what this strategy strips, so the span must not start or end with one.
      // Nor may blank lines border it: the stray ones would then match real ones.
      const border = [f.lines[e.a - 1], f.lines[e.b + 1]].some((x) => x !== undefined && isBlank(x));
      if (border || isBlank(f.lines[e.a]) || isBlank(f.lines[e.b]) || !l.newLines.length || !l.newLines[0].trim() || !l.newLines[l.newLines.length - 1].trim()) return null;
      // One stray line break at either end could be the file's own (the line break before the
      // span, or the span's last one), so each side gets a real blank line or none.
      const mode = (e.a + e.b) % 3;
      const before = mode === 1 ? '' : '\n\n';
      const after = mode === 2 ? '' : e.withNewline ? '\n' : '\n\n';
      return { oldStr: before + join(l.oldLines, e) + after, newStr: before + join(l.newLines, e) + after };
    },
  },
  unescape: {
    strategy: 'unescape',
    distort: (_f, e, l) => (l.oldLines.length < 2 && !e.withNewline ? null : { oldStr: join(l.oldLines, e, '\\n'), newStr: join(l.newLines, e, '\\n') }),
  },
};

const lineText = (line: string) => line.replace(/\r?\n$/, '');

/** The file after the edit, line by line, as the plan says it must be: bytes where a line is kept, text where it is new. */
function checkAgainstPlan(f: FileSpec, e: EditSpec, after: string, norm: (s: string) => string): string | null {
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

describe('edit_file: every strategy changes exactly the lines it was asked to', () => {
  for (const [name, d] of Object.entries(DISTORTIONS)) {
    it(`${name}: ${RUNS} generated edits apply and keep the invariant`, async () => {
      const used = new Map<string, number>();
      await fc.assert(
        fc.asyncProperty(fileArb(d.fancy), editArb, async (f, raw) => {
          const e = planEdit(f, raw);
          fc.pre(e !== null);
          const strs = d.distort(f, e!, faithful(f, e!));
          fc.pre(strs !== null);
          // A distortion that happens to leave old_str as the file has it is the exact case again.
          fc.pre(name === 'exact' || name === 'crlf-swapped' || strs!.oldStr !== join(faithful(f, e!).oldLines, e!));
          const { text, result } = await editText(render(f), strs!.oldStr, strs!.newStr);
          used.set(result.strategy, (used.get(result.strategy) ?? 0) + 1);
          const wrong = checkAgainstPlan(f, e!, text, d.norm ?? ((s) => s));
          if (wrong) throw new Error(`${wrong}\nbefore: ${JSON.stringify(render(f))}\nafter:  ${JSON.stringify(text)}\nold_str: ${JSON.stringify(strs!.oldStr)}\nnew_str: ${JSON.stringify(strs!.newStr)}`);
        }),
        { numRuns: RUNS },
      );
      // Every run exercised the strategy it is named after, not an exact match by chance.
      expect(used.get(d.strategy)).toBe(RUNS);
    }, 60_000);
  }
});

describe('code_modify: line edits change exactly the lines they name', () => {
  it(`${RUNS} generated replace, insert and delete edits keep the invariant`, () => {
    fc.assert(
      fc.property(fileArb(), editArb, fc.constantFrom('replace', 'insert_before', 'insert_after', 'delete'), (f, raw, operation) => {
        const e = planEdit(f, raw);
        fc.pre(e !== null && !isBlank(f.lines[e.a]));
        const n = f.lines.length;
        const before = render(f);
        // New lines indented like the line they go next to: unindented ones would take its indentation.
        const fresh = (k: number, at: number) => `${lead(textOfLine(f.lines[at]))}m${k}_ new`;
        let edit: Parameters<typeof applyLineEdit>[1];
        let plan: EditSpec;
        if (operation === 'replace') {
          // The first line stays first (kept or changed), so the content is never re-indented.
          const firstKept = e!.planned.some((p) => 'keep' in p && p.keep === e!.a);
          const rest = e!.planned.filter((p) => ('keep' in p ? p.keep !== e!.a : !p.text.includes(`n${e!.a}_`)));
          const planned = [firstKept ? { keep: e!.a } : { text: `${f.lines[e!.a].indent}n${e!.a}_ x` }, ...rest];
          plan = { ...e!, planned };
          // new_content's own final line break is dropped, so a last blank line needs one more.
          const content = planned.map((p) => ('keep' in p ? textOfLine(f.lines[p.keep]) : p.text)).join('\n') + '\n';
          edit = { operation, range: [e!.a + 1, e!.b + 1], content };
        } else if (operation === 'delete') {
          plan = { ...e!, planned: [] };
          edit = { operation, range: [e!.a + 1, e!.b + 1] };
        } else {
          const at = operation === 'insert_before' ? e!.a : e!.b;
          const added = [fresh(0, at), fresh(1, at)].slice(0, 1 + (raw.lenSeed % 2));
          plan = operation === 'insert_before' ? { a: at, b: at, planned: [...added.map((text) => ({ text })), { keep: at }], withNewline: true } : { a: at, b: at, planned: [{ keep: at }, ...added.map((text) => ({ text }))], withNewline: true };
          edit = { operation, line: at + 1, content: added.join('\n') };
        }
        // Deleting down to an empty last line of a file without a final newline reads both ways.
        const last = plan.planned[plan.planned.length - 1] ?? (plan.a > 0 ? { keep: plan.a - 1 } : { text: 'x' });
        fc.pre(!(plan.b === n - 1 && !f.finalNewline && ('keep' in last ? textOfLine(f.lines[last.keep]) : last.text) === ''));
        let after: string;
        try {
          after = applyLineEdit(before, edit).text;
        } catch (err) {
          throw new Error(`${(err as Error).message}\nbefore: ${JSON.stringify(before)}\nedit: ${JSON.stringify(edit)}`, { cause: err });
        }
        const wrong = checkAgainstPlan(f, plan, after, (s) => s);
        if (wrong) throw new Error(`${wrong}\nbefore: ${JSON.stringify(before)}\nafter:  ${JSON.stringify(after)}\nedit: ${JSON.stringify(edit)}`);
      }),
      { numRuns: RUNS },
    );
  }, 60_000);
});
