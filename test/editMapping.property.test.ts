// A reading is a mapping between the model's text and the file's, and new_str goes through the
// same mapping line by line (docs/architecture.md, the edit pipeline). For each reading, over
// generated files (mixed indentation, CRLF/LF, tabs, trailing blanks, blank lines) and the slip
// the reading exists for: a new_str equal to old_str changes nothing, and a new_str that
// changes one token changes only that token's line, with the file's indentation and the file's
// line splitting, every other byte as it was. Never a model call.
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { deriveReindent } from '../src/main/agent/edit/strategies/indentation';
import { RUNS, TIMEOUT, attempt, canonText, holds, show, type Attempt, type ValueOf } from './support/editAttempt';
import { DISTORTIONS } from './support/editDistortions';
import { checkAgainstPlan, fileArb, filled, finishPlan, isBlank, spanOf, textOfLine, type EditSpec, type FileSpec, type Planned } from './support/editPlan';

/** old_str and new_str as a model with this slip writes the span's lines (file text, line by line). */
type Slip = (f: FileSpec, e: EditSpec, lines: { oldLines: string[]; newLines: string[] }, pick: number) => { oldStr: string; newStr: string } | null;

const joinAll = (lines: string[], e: EditSpec, sep = '\n') => lines.join(sep) + (e.withNewline ? sep : '');

/** The readings every edit can meet (test/support/editDistortions), and the two that need a line shape. */
const SLIPS: Record<string, { fancy?: boolean; minSpan?: number; strategy: string; slip: Slip }> = {
  ...Object.fromEntries(
    ['trailing-whitespace', 'typography', 'indentation', 'blank-lines', 'line-number-prefix', 'unescape'].map((name) => {
      const d = DISTORTIONS[name];
      return [name, { fancy: d.fancy, strategy: d.strategy, slip: d.distort }];
    }),
  ),
  'misaligned-line': {
    strategy: 'misaligned-line',
    minSpan: 2,
    // One line with text a tab or a space off; no re-indentation of the whole explains it.
    slip: (f, e, l, pick) => {
      const bodies = l.oldLines.flatMap((x, k) => (x.trim() ? [k] : []));
      if (bodies.length < 2) return null;
      const odd = bodies[pick % bodies.length];
      const indent = f.lines[e.a + odd].indent;
      const wrong = ['\t' + indent, ' ' + indent, indent + ' '][(pick >> 3) % 3];
      const shift = (xs: string[]) => xs.map((x, k) => (k === odd ? wrong + x.slice(indent.length) : x));
      const oldLines = shift(l.oldLines);
      if (deriveReindent(oldLines, l.oldLines) !== null) return null;
      return { oldStr: joinAll(oldLines, e), newStr: joinAll(shift(l.newLines), e) };
    },
  },
  'joined-lines': {
    strategy: 'joined-lines',
    minSpan: 2,
    // Two neighbouring lines with text written as one, with a space at the break or none.
    slip: (f, e, l, pick) => {
      const pairs = l.oldLines.flatMap((x, k) => (k + 1 < l.oldLines.length && x.trim() && l.oldLines[k + 1].trim() ? [k] : []));
      if (!pairs.length) return null;
      const i = pairs[pick % pairs.length];
      const sep = (pick >> 4) % 2 ? ' ' : '';
      const glue = (xs: string[]) => [...xs.slice(0, i), xs[i].trimEnd() + sep + xs[i + 1].trimStart(), ...xs.slice(i + 2)];
      return { oldStr: joinAll(glue(l.oldLines), e), newStr: joinAll(glue(l.newLines), e) };
    },
  },
};

const slipArb = (fancy: boolean) =>
  fc.record({
    file: fileArb(fancy, { minLines: 2 }),
    aSeed: fc.nat(),
    lenSeed: fc.nat(),
    withNewline: fc.boolean(),
    line: fc.nat(),
    token: fc.nat(),
    pick: fc.nat(),
  });

describe('every reading carries new_str through its own mapping, line by line', () => {
  for (const [name, { fancy, minSpan, strategy, slip }] of Object.entries(SLIPS)) {
    it(`${name}: ${RUNS} generated slips; new_str = old_str changes nothing, one token changes only its line`, async () => {
      await holds(slipArb(!!fancy), async (t) => {
        const { a, b } = spanOf(t.file, t, minSpan ?? 1);
        // The span's first and last lines hold text: an old_str never starts or ends on a blank line here.
        const f = filled(t.file, [a, b]);
        const spanLines = f.lines.slice(a, b + 1);
        const withText = spanLines.flatMap((l, k) => (isBlank(l) ? [] : [k]));
        const k = withText[t.line % withText.length];
        // The one token: a word of line a + k, replaced by one that no character of the file's has.
        const line = f.lines[a + k];
        const words = line.body.split(' ');
        const w = t.token % words.length;
        const changed = `${line.indent}${[...words.slice(0, w), 'QK', ...words.slice(w + 1)].join(' ')}${line.trail}`;
        const planned: Planned[] = spanLines.map((_, j) => (j === k ? { text: changed } : { keep: a + j }));
        const e = finishPlan(f, a, b, planned, t.withNewline);
        fc.pre(e !== null);
        const oldLines = spanLines.map(textOfLine);
        const newLines = oldLines.map((x, j) => (j === k ? changed : x));
        const strs = slip(f, e!, { oldLines, newLines }, t.pick);
        fc.pre(strs !== null && !canonText(f).includes(strs.oldStr));

        // new_str equal to old_str: the mapping takes every line back to the file's own bytes.
        const same = await attempt(f, strs!.oldStr, strs!.oldStr);
        if (same.ok || same.code !== 'EDIT_NO_CHANGE') throw new Error(`new_str = old_str changed the file${show(f, strs!.oldStr, strs!.oldStr, same)}`);

        // One token changed: that line, as the file lays it out, and nothing else.
        const got = await attempt(f, strs!.oldStr, strs!.newStr);
        if (!got.ok || got.strategy !== strategy) throw new Error(`expected ${strategy}${show(f, strs!.oldStr, strs!.newStr, got)}`);
        // Trailing blanks on a changed line are the model's under the trailing-whitespace reading.
        const norm = name === 'trailing-whitespace' ? (s: string) => s.trimEnd() : (s: string) => s;
        const wrong = checkAgainstPlan(f, e!, got.text, norm);
        if (wrong) throw new Error(`${wrong}${show(f, strs!.oldStr, strs!.newStr, got)}`);
      });
    }, TIMEOUT);
  }
});

describe('where the mapping cannot say how a line of new_str maps, the edit is refused and nothing written', () => {
  const arb = fc.record({ file: fileArb(false, { minLines: 2 }), aSeed: fc.nat(), lenSeed: fc.nat(), withNewline: fc.boolean(), pick: fc.nat() });

  /** A span with at least two lines with text, its first and last among them. */
  function spanWithText(t: ValueOf<typeof arb>) {
    const { a, b } = spanOf(t.file, t, 2);
    const f = filled(t.file, [a, b]);
    const e = finishPlan(f, a, b, f.lines.slice(a, b + 1).map((_, j) => ({ keep: a + j })), t.withNewline);
    return { f, e, lines: f.lines.slice(a, b + 1).map(textOfLine) };
  }

  const expectNothingWritten = (f: FileSpec, oldStr: string, newStr: string, got: Attempt, strategy: string) => {
    if (got.ok || got.code !== 'EDIT_NO_OCCURRENCE_FOUND' || !got.message.includes(`read as ${strategy}`) || !got.message.includes('Nothing was written')) {
      throw new Error(`expected a refusal of the ${strategy} reading${show(f, oldStr, newStr, got)}`);
    }
  };

  it(`joined-lines: ${RUNS} rewrites with one statement more than the joined line had`, async () => {
    await holds(arb, async (t) => {
      const { f, e, lines } = spanWithText(t);
      fc.pre(e !== null);
      const pairs = lines.flatMap((x, k) => (k + 1 < lines.length && x.trim() && lines[k + 1].trim() ? [k] : []));
      fc.pre(pairs.length > 0);
      const i = pairs[t.pick % pairs.length];
      const sep = (t.pick >> 4) % 2 ? ' ' : '';
      const head = lines[i].trimEnd();
      // The character the file breaks the statement after ends the new statement too.
      const tail = head[head.length - 1];
      const next = lines[i + 1].trimStart();
      const joined = (extra: string) => [...lines.slice(0, i), head + sep + extra + next, ...lines.slice(i + 2)];
      const oldStr = joinAll(joined(''), e!);
      const newStr = joinAll(joined(`QK${tail}${sep}`), e!);
      fc.pre(!canonText(f).includes(oldStr));
      expectNothingWritten(f, oldStr, newStr, await attempt(f, oldStr, newStr), 'joined-lines');
    });
  }, TIMEOUT);

  it(`misaligned-line: ${RUNS} new lines at the misaligned indentation, which an aligned line has too`, async () => {
    await holds(arb, async (t) => {
      const { f, e, lines } = spanWithText(t);
      fc.pre(e !== null);
      const bodies = lines.flatMap((x, k) => (x.trim() ? [k] : []));
      const odd = bodies[t.pick % bodies.length];
      const other = bodies.filter((k) => k !== odd)[(t.pick >> 3) % (bodies.length - 1)];
      const indentOf = (x: string) => /^[ \t]*/.exec(x)![0];
      // old_str gives the misaligned line the indentation of another line with text.
      const wrong = indentOf(lines[other]);
      fc.pre(wrong !== indentOf(lines[odd]));
      const oldLines = lines.map((x, k) => (k === odd ? wrong + x.slice(indentOf(x).length) : x));
      fc.pre(deriveReindent(oldLines, lines) === null);
      const newLines = [...oldLines.slice(0, odd + 1), `${wrong}QK new`, ...oldLines.slice(odd + 1)];
      const oldStr = joinAll(oldLines, e!);
      const newStr = joinAll(newLines, e!);
      fc.pre(!canonText(f).includes(oldStr));
      expectNothingWritten(f, oldStr, newStr, await attempt(f, oldStr, newStr), 'misaligned-line');
    });
  }, TIMEOUT);
});
