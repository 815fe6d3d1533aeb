// Steps 5–6 as one search (docs/architecture.md, the edit pipeline). Each reading of the
// request (as given, unescaped, without its line numbers, or unescaped and then without them)
// is looked for under each view of the file (exact, trailing whitespace, typography,
// indentation, one misaligned line, stray blank lines, joined lines): a stacked slip is a
// composition of deterministic steps, each keeping its own rule, never a fuzzy match.
// Every composition is tried, so one that finds the text somewhere else makes the request
// ambiguous: it is refused, naming every place, instead of applied to the first.
import { applySplices } from './splice';
import { blankLines } from './strategies/blankLines';
import { exact } from './strategies/exact';
import { indentation } from './strategies/indentation';
import { joinedLines } from './strategies/joinedLines';
import { prefixReadings } from './strategies/lineNumberPrefix';
import { misalignedLine } from './strategies/misalignedLine';
import { trailingWhitespace } from './strategies/trailingWhitespace';
import { typography } from './strategies/typography';
import { unescapeReadings } from './strategies/unescape';
import { Unmapped, type EditInput, type Located, type Range, type Reading, type Strategy } from './types';

/** The views, least risky first; exact is step 4 for the request as given. */
export const VIEWS: Strategy[] = [exact, trailingWhitespace, typography, indentation, misalignedLine, blankLines, joinedLines];

export type Search =
  | { kind: 'found'; located: Located }
  /** More places than expected: every line a composition found, and which compositions. */
  | { kind: 'ambiguous'; lines: number[]; by: string[] }
  | { kind: 'none'; tried: string[] };

/** The request as given, then each reading, fewest corrections first. */
export function readingsOf(input: EditInput): Reading[] {
  const unescaped = unescapeReadings(input);
  const given: Reading = { name: '', input };
  const out = [given, ...unescaped];
  for (const base of [given, ...unescaped]) for (const p of prefixReadings(base.input)) out.push({ name: nameOf(base.name, p.name), input: p.input });
  return out;
}

const nameOf = (...steps: string[]) => steps.filter((s) => s && s !== 'exact').join('+');
const stepsIn = (name: string) => (name ? name.split('+').length : 0);

interface Composition {
  name: string;
  steps: number;
  view: Strategy;
  input: EditInput;
}

/** Fewest steps first; within one count of steps, the readings' and the views' own order. */
function compositions(input: EditInput): Composition[] {
  const bySteps: Composition[][] = [];
  for (const r of readingsOf(input)) {
    for (const view of VIEWS) {
      if (!r.name && view === exact) continue;
      const name = nameOf(r.name, view.name);
      const steps = stepsIn(name);
      (bySteps[steps] ??= []).push({ name, steps, view, input: r.input });
    }
  }
  return bySteps.flat();
}

/** The lines a range covers, first and last (1-based). */
const spanOf = (input: EditInput, r: Range): [number, number] => [input.lines.lineAt(r.start), input.lines.lineAt(Math.max(r.start, r.end - 1))];

/**
 * Every composition but the plain exact match. Found only when every composition that finds
 * anything finds it where the first one did (its ranges share lines with the first's), and
 * those with as many steps as the first would leave the file the same; anything found
 * elsewhere, or the same place read into two results, makes the request ambiguous.
 */
export function search(request: EditInput): Search {
  const input: EditInput = { ...request, memo: request.memo ?? new Map() };
  const found: { name: string; steps: number; located: Located }[] = [];
  const others: { name: string; ranges: Range[] }[] = [];
  const tried = new Set(['exact']);
  for (const c of compositions(input)) {
    for (const step of c.name.split('+')) tried.add(step);
    const out = c.view.locate(c.input);
    if (out.kind === 'found') {
      const { located } = out;
      const correctedOld = located.correctedOld ?? (c.input.oldStr !== input.oldStr ? c.input.oldStr : undefined);
      found.push({ name: c.name, steps: c.steps, located: { ...located, strategy: c.name, correctedOld } });
    } else if (out.kind === 'ambiguous') others.push({ name: c.name, ranges: out.ranges });
  }
  const linesOf = (lists: Range[][]) => placesOf(lists.flat().map((r) => spanOf(input, r)));
  if (found.length) {
    const [first, ...rest] = found;
    const spans = first.located.ranges.map((r) => spanOf(input, r));
    const inside = (r: Range) => {
      const [a, b] = spanOf(input, r);
      return spans.some(([x, y]) => a <= y && x <= b);
    };
    const elsewhere = [...rest.map((f) => ({ name: f.name, ranges: f.located.ranges })), ...others].filter((o) => !o.ranges.every(inside));
    // The same place read two ways with as many corrections must come out the same, or nobody
    // can tell which is meant; a reading with more corrections yields to one with fewer.
    const peers = rest.filter((f) => f.steps === first.steps && f.located.ranges.every(inside));
    const outcome = peers.length ? resultOf(input, first.located) : '';
    const otherwise = peers.filter((f) => resultOf(input, f.located) !== outcome);
    if (elsewhere.length === 0 && otherwise.length === 0) return { kind: 'found', located: first.located };
    if (elsewhere.length === 0) return { kind: 'ambiguous', lines: linesOf([first.located.ranges]), by: [first.name, ...otherwise.map((f) => f.name)] };
    return { kind: 'ambiguous', lines: linesOf([first.located.ranges, ...elsewhere.map((o) => o.ranges)]), by: [first.name, ...elsewhere.map((o) => o.name)] };
  }
  if (others.length) return { kind: 'ambiguous', lines: linesOf(others.map((o) => o.ranges)), by: others.map((o) => o.name) };
  return { kind: 'none', tried: [...tried] };
}

/** The file after the edit as this composition reads it (null when it cannot carry new_str). */
const resultOf = (input: EditInput, l: Located): string | null => {
  const replacements = l.render(l.newStr);
  if (replacements instanceof Unmapped) return null;
  return applySplices(input.text, l.ranges.map((r, i) => ({ ...r, replacement: replacements[i] })));
};

/** The first line of each place: ranges that share lines are one place, read two ways. */
function placesOf(spans: [number, number][]): number[] {
  const firsts: number[] = [];
  let end = -1;
  for (const [a, b] of [...spans].sort((x, y) => x[0] - y[0] || x[1] - y[1])) {
    if (a > end) firsts.push(a);
    end = Math.max(end, b);
  }
  return firsts;
}
