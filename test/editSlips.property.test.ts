// The edit slips real models make (docs/architecture.md, the edit pipeline), generated over
// files with mixed indentation, CRLF/LF, tabs, trailing blanks and blank lines: partial
// line-number prefixes, one misaligned line, stacked slips and no-op calls. Each is recovered
// where the pipeline's rules allow, exactly as planned and keeping the edit invariant, or
// refused with the place and the first line that differs, and never with a model call.
// Ambiguity after normalising and content slips are in test/editAmbiguity.property.test.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deriveReindent } from '../src/main/agent/edit/strategies/indentation';
import { noChangeReason } from '../src/main/agent/edit/noChange';
import { RUNS, TIMEOUT, type ValueOf, attempt, canonText, expectApplied, expectRefused, holds, numbered, planFilled, show } from './support/editAttempt';
import { checkAgainstPlan, editArb, faithful, fileArb, finishPlan, isBlank, join, lead, planEdit, reindented, textOfLine, type EditSpec, type FileSpec, type Planned } from './support/editPlan';

describe('partial line-number prefixes', () => {
  const prefixArb = fc.record({
    file: fileArb(),
    seed: editArb,
    oldMask: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
    newMask: fc.array(fc.boolean(), { minLength: 9, maxLength: 9 }),
    arrow: fc.boolean(),
    bareFirst: fc.boolean(),
    residue: fc.boolean(),
    shift: fc.constantFrom(-3, -2, -1, 1, 2, 3),
  });

  /** old_str and new_str with `cat -n` or read_file prefixes on some lines, numbered from `first`. */
  function prefixed(t: ValueOf<typeof prefixArb>, e: EditSpec, first: number) {
    const f = t.file;
    const l = faithful(f, e);
    const sep = t.arrow ? '→' : '\t';
    const has = l.oldLines.map((_, k) => (k === 0 ? !t.bareFirst : t.oldMask[k % 6]));
    // At least one line carries its number.
    if (!has.some(Boolean)) has[has.length - 1] = true;
    // A tab (or arrow) left from the prefix's separator, in front of the first line of both.
    const residue = !has[0] && t.residue ? sep : '';
    const oldLines = l.oldLines.map((x, k) => (has[k] ? numbered(first + k, x, sep) : k === 0 ? residue + x : x));
    // The model numbers new_str's lines as they would stand after the edit.
    const newLines = l.newLines.map((x, k) => (t.newMask[k % 9] ? numbered(first + k, x, sep) : k === 0 ? residue + x : x));
    return { oldStr: join(oldLines, e), newStr: join(newLines, e) };
  }

  it(`${RUNS} edits with prefixes on some lines are recovered exactly`, async () => {
    await holds(prefixArb, async (t) => {
      const e = planEdit(t.file, t.seed);
      fc.pre(e !== null);
      const p = prefixed(t, e!, e!.a + 1);
      expectApplied(t.file, e!, p.oldStr, p.newStr, await attempt(t.file, p.oldStr, p.newStr), 'line-number-prefix');
    });
  }, TIMEOUT);

  it(`${RUNS} edits whose numbers do not line up are refused, saying where the text is`, async () => {
    await holds(prefixArb, async (t) => {
      const e = planEdit(t.file, t.seed);
      fc.pre(e !== null);
      // Numbers off by a few lines, never below line 1.
      const said = e!.a + 1 + (e!.a + 1 + t.shift >= 1 ? t.shift : -t.shift);
      const p = prefixed(t, e!, said);
      const got = await attempt(t.file, p.oldStr, p.newStr);
      expectRefused(t.file, p.oldStr, p.newStr, got, 'EDIT_NO_OCCURRENCE_FOUND', `old_str is at line ${e!.a + 1} of f.txt, but its numbers say line ${said}`);
    });
  }, TIMEOUT);
});

describe('one misaligned line', () => {
  const misArb = fc.record({ file: fileArb(false, { minLines: 3 }), seed: editArb, pick: fc.nat(), second: fc.nat(), how: fc.nat(4) });

  /** A wrong indentation for `indent`, never one that reads as the end of the file's (a suffix). */
  const misindent = (indent: string, how: number) => [' ' + indent, '  ' + indent, '\t' + indent, indent.replace(/\t/g, '  ') + ' ', indent + ' '][how];

  /** The span's lines with text, by index in the span. */
  const bodies = (f: FileSpec, e: EditSpec) => f.lines.slice(e.a, e.b + 1).flatMap((l, k) => (isBlank(l) ? [] : [k]));

  /** No consistent re-indentation explains old_str's lines (that is the indentation view's reading). */
  const unmapped = (f: FileSpec, e: EditSpec, oldLines: string[]) => deriveReindent(oldLines, f.lines.slice(e.a, e.b + 1).map(textOfLine)) === null;

  it(`${RUNS} edits with one line misaligned are recovered, that line corrected wherever new_str writes it`, async () => {
    let applied = 0;
    await holds(misArb, async (raw) => {
      const { file, e } = planFilled(raw.file, raw.seed, 2, (a, b) => [a, b]);
      const t = { ...raw, file };
      fc.pre(e !== null);
      const ks = bodies(t.file, e!);
      const odd = ks[t.pick % ks.length];
      const line = t.file.lines[e!.a + odd];
      const wrongIndent = misindent(line.indent, t.how);
      const wrong = wrongIndent + line.body + line.trail;
      const l = faithful(t.file, e!);
      const oldLines = l.oldLines.map((x, k) => (k === odd ? wrong : x));
      // new_str as the model sees the file: the misaligned line, kept or rewritten, at its wrong indentation.
      const newLines = e!.planned.map((p, j) =>
        'keep' in p ? (p.keep === e!.a + odd ? wrong : l.newLines[j]) : p.text.includes(`n${e!.a + odd}_`) ? wrongIndent + p.text.slice(line.indent.length) : l.newLines[j],
      );
      const oldStr = join(oldLines, e!);
      const newStr = join(newLines, e!);
      fc.pre(unmapped(t.file, e!, oldLines) && !canonText(t.file).includes(oldStr));
      const got = await attempt(t.file, oldStr, newStr);
      // Where the reading maps an indentation two ways (the misaligned one is also an aligned
      // line's) and new_str writes a line of its own with it, that line may stand for either:
      // refused, or written at either of the two, never anything else.
      const twoWays = oldLines.some((x, k) => k !== odd && x.trim() && lead(x) === wrongIndent) && newLines.some((x) => x.trim() && !oldLines.includes(x) && lead(x) === wrongIndent);
      if (!got.ok && twoWays) return expectRefused(t.file, oldStr, newStr, got, 'EDIT_NO_OCCURRENCE_FOUND', 'read as misaligned-line', 'Nothing was written');
      if (twoWays && got.ok && got.strategy === 'misaligned-line') {
        const either = (x: string) => (x.startsWith(wrongIndent) ? line.indent + x.slice(wrongIndent.length) : x);
        const wrong = checkAgainstPlan(t.file, e!, got.text, either);
        if (wrong) throw new Error(`${wrong}${show(t.file, oldStr, newStr, got)}`);
      } else expectApplied(t.file, e!, oldStr, newStr, got, 'misaligned-line');
      applied++;
    });
    // Most runs apply: the refusals are the few the rule asks for.
    expect(applied).toBeGreaterThan(RUNS * 0.9);
  }, TIMEOUT);

  it(`${RUNS} edits with two lines misaligned are refused, naming the first that differs`, async () => {
    await holds(misArb, async (raw) => {
      const { file, e } = planFilled(raw.file, raw.seed, 3, (a, b) => [a, a + 1, b]);
      const t = { ...raw, file };
      fc.pre(e !== null);
      const ks = bodies(t.file, e!);
      const one = ks[t.pick % ks.length];
      const two = ks.filter((k) => k !== one)[t.second % (ks.length - 1)];
      const wrongOf = (k: number, how: number) => {
        const line = t.file.lines[e!.a + k];
        return misindent(line.indent, how) + line.body + line.trail;
      };
      const l = faithful(t.file, e!);
      const oldLines = l.oldLines.map((x, k) => (k === one ? wrongOf(k, t.how) : k === two ? wrongOf(k, (t.how + 1) % 5) : x));
      fc.pre(unmapped(t.file, e!, oldLines));
      const oldStr = join(oldLines, e!);
      const newStr = join(l.newLines, e!);
      const first = Math.min(one, two);
      const got = await attempt(t.file, oldStr, newStr);
      expectRefused(t.file, oldStr, newStr, got, 'EDIT_NO_OCCURRENCE_FOUND', `first difference is at line ${e!.a + first + 1}:`, `old_str line ${first + 1}: ${JSON.stringify(oldLines[first])}`);
    });
  }, TIMEOUT);
});

describe('stacked slips: compositions of the deterministic steps', () => {
  const stackArb = fc.record({ file: fileArb(false, { minLines: 2 }), seed: editArb, mask: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }), arrow: fc.boolean() });

  it(`${RUNS} edits with line-number prefixes and lost or added indentation (LF, CRLF and mixed files)`, async () => {
    await holds(stackArb, async (t) => {
      const e = planEdit(t.file, t.seed);
      fc.pre(e !== null);
      const r = reindented(t.file, e!, faithful(t.file, e!));
      const sep = t.arrow ? '→' : '\t';
      const has = r.oldLines.map((_, k) => k === 0 || t.mask[k % 6]);
      const oldStr = join(r.oldLines.map((x, k) => (has[k] ? numbered(e!.a + 1 + k, x, sep) : x)), e!);
      const newStr = join(r.newLines.map((x, k) => (t.mask[(k + 3) % 6] ? numbered(e!.a + 1 + k, x, sep) : x)), e!);
      expectApplied(t.file, e!, oldStr, newStr, await attempt(t.file, oldStr, newStr), 'line-number-prefix+indentation');
    });
  }, TIMEOUT);

  it(`${RUNS} edits with a literal \\n where each line break was, and shifted indentation`, async () => {
    await holds(stackArb, async (t) => {
      const e = planEdit(t.file, t.seed, 2);
      fc.pre(e !== null);
      const r = reindented(t.file, e!, faithful(t.file, e!));
      const oldStr = join(r.oldLines, e!, '\\n');
      const newStr = join(r.newLines, e!, '\\n');
      expectApplied(t.file, e!, oldStr, newStr, await attempt(t.file, oldStr, newStr), 'unescape+indentation');
    });
  }, TIMEOUT);

  const joinArb = fc.record({
    file: fileArb(false, { minLines: 2 }),
    seed: editArb,
    at: fc.nat(),
    space: fc.boolean(),
    mode: fc.constantFrom('keep', 'delete', 'append'),
    change: fc.nat(8),
    prefixes: fc.boolean(),
  });

  it(`${RUNS} edits with two lines of a statement joined into one (and line-number prefixes on some)`, async () => {
    let applied = 0;
    await holds(joinArb, async (t) => {
      const { file: f, e: e0 } = planFilled(t.file, t.seed, 2, (a) => [a, a + 1]);
      fc.pre(e0 !== null);
      const { a, b } = e0!;
      // Two neighbouring lines with text inside the span, joined in old_str (and in new_str where kept).
      const pairs = Array.from({ length: b - a }, (_, k) => a + k).filter((i) => !isBlank(f.lines[i]) && !isBlank(f.lines[i + 1]));
      const i = pairs[t.at % pairs.length];
      const joined = textOfLine(f.lines[i]).trimEnd() + (t.space ? ' ' : '') + textOfLine(f.lines[i + 1]).trimStart();
      const planned: Planned[] = [];
      const newLines: string[] = [];
      for (let k = a; k <= b; k++) {
        if (k === i + 1) continue;
        if (k === i) {
          if (t.mode === 'keep') planned.push({ keep: i }, { keep: i + 1 });
          // The piece left as it was keeps the file's bytes, trailing blanks and all.
          if (t.mode === 'append') planned.push({ keep: i }, { text: `${textOfLine(f.lines[i + 1])} z` });
          if (t.mode !== 'delete') newLines.push(t.mode === 'append' ? `${joined} z` : joined);
        } else if (k === a + t.change && !isBlank(f.lines[k])) {
          const text = `${f.lines[k].indent}n${k}_ x`;
          planned.push({ text });
          newLines.push(text);
        } else {
          planned.push({ keep: k });
          newLines.push(textOfLine(f.lines[k]));
        }
      }
      const e = finishPlan(f, a, b, planned, e0!.withNewline);
      fc.pre(e !== null);
      const oldLines = f.lines.slice(a, b + 1).flatMap((l, k) => (a + k === i + 1 ? [] : [a + k === i ? joined : textOfLine(l)]));
      // With prefixes, the joined line carries its first line's number: the numbers after it skip one.
      const number = (xs: string[]) => xs.map((x, k) => numbered(a + 1 + k + (a + k > i ? 1 : 0), x, '\t'));
      const oldStr = join(t.prefixes ? [oldLines[0], ...number(oldLines).slice(1)] : oldLines, e!);
      const newStr = join(newLines, e!);
      // Something must change: a request that keeps every line is a no-op, refused as such.
      fc.pre(t.mode === 'delete' || planned.some((p) => 'text' in p));
      const got = await attempt(f, oldStr, newStr);
      if (t.prefixes && oldLines.length > 1 && i - a < oldLines.length - 1) {
        // Numbers that skip a line do not line up with old_str's lines: refused, never applied elsewhere.
        if (got.ok) throw new Error(`applied a request whose numbers do not line up${show(f, oldStr, newStr, got)}`);
        return;
      }
      // Refused only where where the file would break a line is not in the strings: a line
      // new_str writes has text after the character the file breaks the joined statement at.
      const tail = textOfLine(f.lines[i]).trimEnd().slice(-1);
      const unclear = newLines.some((x) => !oldLines.includes(x) && x.trimEnd().slice(0, -1).includes(tail));
      const strategy = t.prefixes && oldLines.length > 1 ? 'line-number-prefix+joined-lines' : 'joined-lines';
      if (!got.ok && unclear) return expectRefused(f, oldStr, newStr, got, 'EDIT_NO_OCCURRENCE_FOUND', `read as ${strategy}`, 'Nothing was written');
      expectApplied(f, e!, oldStr, newStr, got, strategy);
      applied++;
    });
    expect(applied).toBeGreaterThan(RUNS * 0.5);
  }, TIMEOUT);
});

describe('no-op calls', () => {
  const noopArb = fc.record({ file: fileArb(), seed: editArb, form: fc.constantFrom('exact', 'reindented', 'absent'), known: fc.nat(9) });

  it(`${RUNS} calls whose new_str is their old_str say so, and whether and where the file holds it`, async () => {
    await holds(noopArb, async (t) => {
      const e = planEdit(t.file, t.seed);
      fc.pre(e !== null);
      const l = faithful(t.file, e!);
      const lines = t.form === 'reindented' ? reindented(t.file, e!, l).oldLines : t.form === 'absent' ? l.oldLines.map((x) => x.replace(/v(\d+)_/g, 'gone$1_')) : l.oldLines;
      const oldStr = join(lines, e!);
      fc.pre(oldStr.trim() !== '');
      // Told only to a caller that read the file as it is; the others learn nothing of it.
      const text = t.known ? canonText(t.file) : null;
      const why = noChangeReason(text, oldStr, false);
      const holdsIt = why.includes('already holds this text');
      if (!why.startsWith('old_str and new_str are identical')) throw new Error(why);
      if (text === null || t.form === 'absent') {
        if (holdsIt || (text !== null && !why.includes('not in the file as given'))) throw new Error(`${why}${show(t.file, oldStr, oldStr, null)}`);
        return;
      }
      const at = `at line ${e!.a + 1}`;
      if (!holdsIt || !why.endsWith(at) || (t.form === 'reindented') !== why.includes('(read with')) throw new Error(`${why} (want ${at})${show(t.file, oldStr, oldStr, null)}`);
    });
  }, TIMEOUT);
});
