// Generated files (mixed indentation, mixed line endings, BOM, trailing blanks, blank lines) and
// generated edits that each recovery strategy must carry out: old_str re-indented, stripped,
// `cat -n`-prefixed, with plain quotes for typographic ones, with the other line ending,
// escaped, padded with blank lines. Every edit must apply, change exactly what it was asked to
// change, and keep the invariant: outside its lines the file is byte-identical, inside them a
// line whose text stays keeps its bytes. code_modify's line edits are held to the same.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { editText } from '../src/main/agent/edit/testing';
import { applyLineEdit } from '../src/main/services/modlog/lineEdit';
import { DISTORTIONS } from './support/editDistortions';
import { checkAgainstPlan, editArb, faithful, fileArb, isBlank, join, lead, planEdit, render, textOfLine, type EditSpec } from './support/editPlan';

const RUNS = 10_000;

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
