import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cutAtLine, fitBudget } from './budget';

describe('fitBudget', () => {
  it('keeps everything that fits', () => {
    expect(fitBudget([10, 20, 30], 100)).toEqual([10, 20, 30]);
  });

  it('cuts only the largest, keeping the small ones whole', () => {
    expect(fitBudget([100, 5000, 300, 8000], 3000)).toEqual([100, 1300, 300, 1300]);
  });

  it('never exceeds the budget, never gives a file more than it has, cuts only files larger than every kept-whole one', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 50_000 }), { maxLength: 30 }), fc.nat({ max: 60_000 }), (sizes, budget) => {
        const keep = fitBudget(sizes, budget);
        const sum = keep.reduce((n, k) => n + k, 0);
        const total = sizes.reduce((n, s) => n + s, 0);
        expect(sum).toBe(Math.min(total, budget));
        keep.forEach((k, i) => expect(k).toBeLessThanOrEqual(sizes[i]));
        const cut = sizes.filter((s, i) => keep[i] < s);
        const whole = sizes.filter((s, i) => keep[i] === s && s > 0);
        if (cut.length && whole.length) expect(Math.min(...cut)).toBeGreaterThanOrEqual(Math.max(...whole));
      }),
    );
  });
});

describe('cutAtLine', () => {
  it('ends at a line break when one is near the end', () => {
    expect(cutAtLine('one\ntwo\nthree\n', 10)).toBe('one\ntwo\n');
    expect(cutAtLine('abcdefghij', 4)).toBe('abcd');
    expect(cutAtLine('short', 10)).toBe('short');
  });
});
