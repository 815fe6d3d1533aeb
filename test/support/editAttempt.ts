// Running generated edit_file requests for the edit-slip property tests (test/editSlips and
// test/editAmbiguity): the pipeline on a generated file with a model standing by that must
// never be asked, and what an applied or refused request must look like.
import fc from 'fast-check';
import { expect } from 'vitest';
import { canonicalise } from '../../src/main/agent/edit/canonical';
import { editText, fakeCorrector } from '../../src/main/agent/edit/testing';
import { LoupeError } from '../../src/main/errors';
import { checkAgainstPlan, filled, planEdit, render, spanOf, type EditSpec, type FileSpec, type editArb } from './editPlan';

/** Runs per pattern (the acceptance asks for at least 10,000). */
export const RUNS = 10_000;
export type ValueOf<A> = A extends fc.Arbitrary<infer T> ? T : never;
export const TIMEOUT = 120_000;
const same = (s: string) => s;

export type Attempt = { ok: true; text: string; strategy: string } | { ok: false; code: string; message: string };

/** edit_file's pipeline on the file, with a model standing by that must never be asked. */
export async function attempt(f: FileSpec, oldStr: string, newStr: string): Promise<Attempt> {
  // Whatever the model were asked, its answer would be the right text: a call would show as a success.
  const corrector = fakeCorrector({ old: 'unused', new: 'unused' });
  let got: Attempt;
  // Refusals are this test's values, not failures: their stack traces (deep, async) cost more
  // than the edit. Anything else is thrown again from a second run, with its stack.
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    const { text, result } = await editText(render(f), oldStr, newStr, { corrector });
    got = { ok: true, text, strategy: result.strategy };
  } catch (err) {
    Error.stackTraceLimit = limit;
    if (!(err instanceof LoupeError)) throw await editText(render(f), oldStr, newStr).catch((again: unknown) => again);
    got = { ok: false, code: err.code, message: err.message };
  } finally {
    Error.stackTraceLimit = limit;
  }
  if (corrector.asked.length) throw new Error(`the model was asked: ${corrector.asked.join(', ')}${show(f, oldStr, newStr, got)}`);
  return got;
}

export const show = (f: FileSpec, oldStr: string, newStr: string, got: unknown) =>
  `\nfile: ${JSON.stringify(render(f))}\nold_str: ${JSON.stringify(oldStr)}\nnew_str: ${JSON.stringify(newStr)}\ngot: ${JSON.stringify(got)}`;

/** The attempt applied with `strategy` and left the file exactly as planned. */
export function expectApplied(f: FileSpec, e: EditSpec, oldStr: string, newStr: string, got: Attempt, strategy: string): void {
  if (!got.ok || got.strategy !== strategy) throw new Error(`expected ${strategy}${show(f, oldStr, newStr, got)}`);
  const wrong = checkAgainstPlan(f, e, got.text, same);
  if (wrong) throw new Error(`${wrong}${show(f, oldStr, newStr, got)}`);
}

export function expectRefused(f: FileSpec, oldStr: string, newStr: string, got: Attempt, code: string, ...says: string[]): void {
  if (got.ok || got.code !== code || !says.every((s) => got.message.includes(s))) throw new Error(`expected ${code} saying ${JSON.stringify(says)}${show(f, oldStr, newStr, got)}`);
}

export const canonText = (f: FileSpec) => canonicalise(render(f)).text;
export const numbered = (n: number, line: string, sep: string) => `${String(n).padStart(6)}${sep}${line}`;

/**
 * A plan over at least `minSpan` lines, the lines `fill(a, b)` names given text first: slips
 * that need lines with text get them, instead of most generated cases being thrown away.
 */
export function planFilled(f: FileSpec, seed: ValueOf<typeof editArb>, minSpan: number, fill: (a: number, b: number) => number[]): { file: FileSpec; e: EditSpec | null } {
  const { a, b } = spanOf(f, seed, minSpan);
  const file = filled(f, fill(a, b));
  return { file, e: planEdit(file, seed, minSpan) };
}

/** Runs `property` RUNS times and counts the runs that were not discarded by fc.pre. */
export async function holds<T>(arb: fc.Arbitrary<T>, property: (t: T) => Promise<void>): Promise<void> {
  let ran = 0;
  await fc.assert(
    fc.asyncProperty(arb, async (t) => {
      await property(t);
      ran++;
    }),
    // FC_SEED replays the seed a failure printed.
    { numRuns: RUNS, ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}) },
  );
  expect(ran).toBe(RUNS);
}
