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
import { applyLineEdit } from '../src/main/services/modlog/lineEdit';
import { checkAgainstPlan, editArb, faithful, fileArb, isBlank, join, lead, planEdit, reindented, render, textOfLine, type EditSpec, type FileSpec } from './support/editPlan';

const RUNS = 10_000;

type Distortion = (f: FileSpec, e: EditSpec, lines: { oldLines: string[]; newLines: string[] }) => { oldStr: string; newStr: string } | null;

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
      const r = reindented(f, e, l);
      return { oldStr: join(r.oldLines, e), newStr: join(r.newLines, e) };
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
