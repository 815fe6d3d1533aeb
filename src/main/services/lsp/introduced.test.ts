import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareProblems } from './introduced';
import type { Problem } from './types';

const problem = (line: number, message: string, extra: Partial<Problem> = {}): Problem => ({
  line,
  column: 5,
  endLine: line,
  endColumn: 9,
  severity: 'error',
  message,
  source: 'typescript',
  code: '2322',
  ...extra,
});

describe('the problems an edit introduced', () => {
  it('does not take problems moved down by inserted lines for new ones (whole-range comparison would)', () => {
    const before = 'a\nb\nc\nd\n';
    const after = 'new 1\nnew 2\na\nb\nc\nd\n';
    const r = compareProblems([problem(2, 'X'), problem(4, 'Y')], [problem(4, 'X'), problem(6, 'Y')], before, after);
    expect(r).toEqual({ introduced: [], resolved: 0 });
  });

  it('reports a problem on a new line, and one that moved to where another was is still matched by its words', () => {
    const r = compareProblems([problem(1, 'old')], [problem(2, 'old'), problem(1, 'new one')], 'x\n', 'y\nx\n');
    expect(r.introduced.map((p) => p.message)).toEqual(['new one']);
    expect(r.resolved).toBe(0);
  });

  it('keeps a problem on a line the edit rewrote (same hunk), and counts what went as resolved', () => {
    const r = compareProblems([problem(2, 'kept'), problem(3, 'gone')], [problem(2, 'kept', { column: 9, endColumn: 12 })], 'a\nb\nc\nd\n', 'a\nB changed\nd\n');
    expect(r).toEqual({ introduced: [], resolved: 1 });
  });

  it('keeps a problem on a line moved elsewhere by the edit', () => {
    const before = 'one\ntwo\nthree\nmoved\n';
    const after = 'moved\none\ntwo\nthree\n';
    const r = compareProblems([problem(4, 'M')], [problem(1, 'M')], before, after);
    expect(r).toEqual({ introduced: [], resolved: 0 });
  });

  it('tells apart a second problem with the same words as a new one', () => {
    const r = compareProblems([problem(1, 'same')], [problem(1, 'same'), problem(3, 'same')], 'a\nb\n', 'a\nb\nc\n');
    expect(r.introduced).toEqual([problem(3, 'same')]);
  });

  it('lists errors first, then warnings, each by line', () => {
    const after = [problem(3, 'w1', { severity: 'warning' }), problem(5, 'e2'), problem(1, 'w0', { severity: 'warning' }), problem(4, 'e1')];
    const r = compareProblems([], after, '', 'a\nb\nc\nd\ne\n');
    expect(r.introduced.map((p) => p.message)).toEqual(['e1', 'e2', 'w0', 'w1']);
  });

  it('for any lines inserted or removed away from the problems, nothing is new and nothing resolved', () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[a-z]{0,6}$/), { minLength: 1, maxLength: 30 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 2 })), { maxLength: 5 }),
        (raw, marks, edits) => {
          // Lines with problems carry a unique text, so an edit never creates another like them.
          const lines = raw.map((l, i) => `${l} ${i}`);
          const marked = new Set(marks.map((m) => m % lines.length));
          const now = lines.map((text, i) => ({ text, problem: marked.has(i) ? `P${i}` : null }));
          for (const [at, insert, remove] of edits) {
            const pos = at % (now.length + 1);
            // Remove only lines without a problem, then insert fresh ones.
            let removed = 0;
            while (removed < remove && pos < now.length && !now[pos].problem) {
              now.splice(pos, 1);
              removed++;
            }
            now.splice(pos, 0, ...Array.from({ length: insert }, (_, k) => ({ text: `inserted ${at}.${k}`, problem: null })));
          }
          const before = lines.map((_, i) => (marked.has(i) ? [problem(i + 1, `P${i}`)] : [])).flat();
          const after = now.flatMap((l, j) => (l.problem ? [problem(j + 1, l.problem)] : []));
          const r = compareProblems(before, after, lines.join('\n'), now.map((l) => l.text).join('\n'));
          expect(r).toEqual({ introduced: [], resolved: 0 });
        },
      ),
      { numRuns: 300 },
    );
  });
});
