// Edit slips that must be refused (docs/architecture.md, the edit pipeline), generated over
// files with mixed indentation, CRLF/LF, tabs, trailing blanks and blank lines: a request
// that matches two places only once normalised (by each view, and across views) names both
// places; a long old_str with one paraphrased token or one omitted line shows the closest
// region and its first differing line. Never a model call. The recoverable slips are in
// test/editSlips.property.test.ts.
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { deriveReindent } from '../src/main/agent/edit/strategies/indentation';
import { RUNS, TIMEOUT, attempt, canonText, expectRefused, holds, planFilled } from './support/editAttempt';
import { editArb, fileArb, finishPlan, isBlank, join, lead, textOfLine, type EditSpec, type FileSpec } from './support/editPlan';

describe('ambiguity that appears only after normalising', () => {
  const KINDS = ['indentation', 'indentation-unmapped', 'trailing-whitespace', 'typography', 'unescape', 'blank-lines', 'misaligned-line', 'joined-lines', 'across-views'] as const;
  type Kind = (typeof KINDS)[number];
  const ambArb = fc.record({ file: fileArb(false, { minLines: 2 }), seed: editArb, pick: fc.nat() });

  /**
   * The span's lines twice (a fence line apart, and fenced from what follows), each copy spaced
   * or spelled its own way, and an old_str that matches neither as it stands but both once
   * `kind` normalises it. Null when the span cannot carry that slip.
   */
  function twoPlaces(f: FileSpec, e: EditSpec, kind: Kind, pick: number): { file: FileSpec; oldStr: string; second: number } | null {
    const span = f.lines.slice(e.a, e.b + 1);
    if (span.length < 2 || span.some(isBlank)) return null;
    const fence = (n: number) => ({ indent: '', body: `fence${n}_`, trail: '', eol: span[0].eol });
    let one = span.map((l) => ({ ...l }));
    let two = span.map((l) => ({ ...l }));
    let oldLines = span.map(textOfLine);
    const k = pick % span.length;
    if (kind === 'indentation' || kind === 'across-views') {
      // Every line indented three tabs deeper than in either copy.
      two = span.map((l) => ({ ...l, indent: '  ' + l.indent }));
      oldLines = span.map((l) => '\t\t\t' + l.indent + l.body + l.trail);
    }
    if (kind === 'indentation-unmapped') {
      // The second copy's first line one space off the rest: no one mapping reaches it from
      // old_str, yet once indentation is set aside it is the text again.
      two = span.map((l, j) => ({ ...l, indent: (j === 0 ? '   ' : '  ') + l.indent }));
      oldLines = span.map((l) => '\t\t\t' + l.indent + l.body + l.trail);
    }
    if (kind === 'trailing-whitespace' || kind === 'across-views') {
      one = span.map((l) => ({ ...l, trail: '\t' }));
      if (kind === 'trailing-whitespace') two = span.map((l) => ({ ...l, trail: ' ' }));
      else two = two.map((l) => ({ ...l, trail: '' }));
      oldLines = span.map((l) => l.indent + l.body);
    }
    if (kind === 'typography') {
      one[k] = { ...one[k], body: `${one[k].body} \u201Cq\u201D` };
      two[k] = { ...two[k], body: `${two[k].body} \u201Dq\u201C` };
      oldLines[k] = `${span[k].indent}${span[k].body} "q"${span[k].trail}`;
    }
    if (kind === 'misaligned-line') {
      // One line of old_str a tab off, where no re-indentation of the whole explains it.
      if (span.every((l) => !l.indent)) return null;
      oldLines[k] = '\t' + oldLines[k];
      if (deriveReindent(oldLines, span.map(textOfLine)) !== null) return null;
    }
    if (kind === 'joined-lines') oldLines = [...oldLines.slice(0, k), `${oldLines[k].trimEnd()} ${(oldLines[k + 1] ?? '').trimStart()}`, ...oldLines.slice(k + 2)];
    if (kind === 'joined-lines' && k === span.length - 1) return null;
    const lines = [...f.lines.slice(0, e.a), ...one, fence(1), ...two, fence(2), ...f.lines.slice(e.b + 1)];
    const file = { ...f, lines };
    const body = oldLines.join('\n');
    const oldStr = kind === 'unescape' ? oldLines.join('\\n') : kind === 'blank-lines' ? `\n\n${body}\n\n` : body;
    // The stray blank lines must be stray: none beside either copy.
    if (kind === 'blank-lines' && isBlank(lines[e.a - 1] ?? fence(0))) return null;
    return { file, oldStr, second: e.a + span.length + 2 };
  }

  for (const kind of KINDS) {
    it(`${kind}: ${RUNS} requests that match two places once normalised are refused, naming both`, async () => {
      await holds(ambArb, async (raw) => {
        const { file, e } = planFilled(raw.file, raw.seed, 2, (a, b) => Array.from({ length: b - a + 1 }, (_, k) => a + k));
        const t = { ...raw, file };
        fc.pre(e !== null);
        const two = twoPlaces(t.file, e!, kind, t.pick);
        fc.pre(two !== null && !canonText(two.file).includes(two.oldStr));
        const got = await attempt(two!.file, two!.oldStr, 'replacement_ line');
        expectRefused(two!.file, two!.oldStr, 'replacement_ line', got, 'EDIT_EXPECTED_OCCURRENCE_MISMATCH', `at lines ${e!.a + 1}, ${two!.second}, but 1 was expected`);
      });
    }, TIMEOUT);
  }
});

describe('content slips inside a long old_str', () => {
  const LONG = 50;
  const slipArb = fc.record({ file: fileArb(false, { minLines: LONG + 2, maxLines: LONG + 20 }), start: fc.nat(), at: fc.nat(), other: fc.nat(), omit: fc.boolean(), withNewline: fc.boolean() });

  it(`${RUNS} ${LONG}-line requests with one paraphrased token or one omitted line, repeated in new_str, are refused at that line`, async () => {
    await holds(slipArb, async (t) => {
      const f = t.file;
      const a = t.start % (f.lines.length - LONG + 1);
      const b = a + LONG - 1;
      const bodies = Array.from({ length: LONG }, (_, k) => k).filter((k) => !isBlank(f.lines[a + k]));
      // A line left out between lines with text: at either end, old_str would just be shorter
      // (or carry blank lines the file does not have there, which the blank-lines view strips).
      const slips = t.omit ? bodies.slice(1, -1) : bodies;
      fc.pre(slips.length >= 1 && bodies.length >= 2);
      const k = slips[t.at % slips.length];
      const e = finishPlan(f, a, b, [], t.withNewline);
      fc.pre(e !== null);
      const lines = f.lines.slice(a, b + 1).map(textOfLine);
      const line = f.lines[a + k];
      // A paraphrase: the line's last word said otherwise.
      const words = line.body.split(' ');
      const slipped = `${line.indent}${[...words.slice(0, -1), words.length > 1 ? 'paraphrased' : `w${a + k}_`].join(' ')}${line.trail}`;
      const oldLines = t.omit ? lines.filter((_, j) => j !== k) : lines.map((x, j) => (j === k ? slipped : x));
      // new_str repeats the slip and changes another line.
      const changed = bodies.filter((j) => j !== k)[t.other % (bodies.length - 1)];
      const newLines = oldLines.map((x) => (x === lines[changed] ? `${lead(x)}changed_ line` : x));
      const oldStr = join(oldLines, e!);
      const newStr = join(newLines, e!);
      const got = await attempt(f, oldStr, newStr);
      const says = [`first difference is at line ${a + k + 1}:`, `file line ${a + k + 1}: ${JSON.stringify(textOfLine(line))}`, `${String(a + k + 1).padStart(6)}→`];
      if (t.omit) says.push('that old_str leaves out');
      else says.push(`old_str line ${k + 1}: ${JSON.stringify(slipped)}`);
      expectRefused(f, oldStr, newStr, got, 'EDIT_NO_OCCURRENCE_FOUND', ...says);
    });
  }, TIMEOUT);
});
