// Which problems an edit introduced (docs/architecture.md, language servers). Comparing whole
// ranges before and after makes every problem below an inserted line look new; instead each old
// problem is carried through the edit and matched, by its words (severity, source, code, message),
// to a problem after it: first where the line it sat on went (unchanged lines keep their place,
// shifted); then anywhere in the same changed hunk (the edit touched the line, the problem was
// already there); then on a line with the same text elsewhere (a moved line keeps its problem).
// Whatever is left after is introduced; whatever is left before is resolved.
import { alignLines } from '../modlog/lineAlign';
import { SEVERITY_ORDER, type Problem } from './types';

export const MAX_INTRODUCED = 20;

const keyOf = (p: Problem) => `${p.severity}\0${p.source}\0${p.code ?? ''}\0${p.message}`;
const linesOf = (text: string) => text.replace(/^\uFEFF/, '').split(/\r?\n/);

interface LineMap {
  /** Old 0-based line → new 0-based line, for lines the edit left as they were. */
  kept: Map<number, number>;
  /** The changed hunk a line that was not kept belongs to (the number of kept lines before it), per side. */
  oldHunk(line: number): number | null;
  newHunk(line: number): number | null;
}

function lineMap(oldLines: string[], newLines: string[]): LineMap {
  const origins = alignLines(oldLines, newLines);
  const kept = new Map<number, number>();
  const newHunks: (number | null)[] = [];
  let equalsSoFar = 0;
  origins.forEach((o, j) => {
    if (o.kind === 'equal') {
      kept.set(o.from, j);
      newHunks.push(null);
      equalsSoFar++;
    } else newHunks.push(equalsSoFar);
  });
  const oldHunks: (number | null)[] = [];
  let keptSoFar = 0;
  for (let i = 0; i < oldLines.length; i++) {
    if (kept.has(i)) {
      oldHunks.push(null);
      keptSoFar++;
    } else oldHunks.push(keptSoFar);
  }
  return { kept, oldHunk: (l) => oldHunks[l] ?? null, newHunk: (l) => newHunks[l] ?? null };
}

export interface Comparison {
  /** Problems after the edit that no problem before it accounts for, errors first, then by line. */
  introduced: Problem[];
  /** Problems before the edit that no problem after it accounts for. */
  resolved: number;
}

/** Compares the problems of `before` (text `oldText`) with those of `after` (text `newText`). */
export function compareProblems(before: Problem[], after: Problem[], oldText: string, newText: string): Comparison {
  const oldLines = linesOf(oldText);
  const newLines = linesOf(newText);
  const map = lineMap(oldLines, newLines);
  const unmatched = new Map<string, Problem[]>();
  for (const p of before) {
    const k = keyOf(p);
    const list = unmatched.get(k);
    if (list) list.push(p);
    else unmatched.set(k, [p]);
  }
  const take = (a: Problem, fits: (o: Problem) => boolean): boolean => {
    const list = unmatched.get(keyOf(a));
    const i = list ? list.findIndex(fits) : -1;
    if (i === -1) return false;
    list!.splice(i, 1);
    return true;
  };
  const passes: ((a: Problem) => (o: Problem) => boolean)[] = [
    // Where its line went, same columns and extent.
    (a) => (o) => map.kept.get(o.line - 1) === a.line - 1 && o.column === a.column && o.endLine - o.line === a.endLine - a.line && o.endColumn === a.endColumn,
    // In the same changed hunk: the edit rewrote the line, the problem was there already.
    (a) => (o) => {
      const h = map.newHunk(a.line - 1);
      return h !== null && map.oldHunk(o.line - 1) === h;
    },
    // A moved line: the same text elsewhere, the same column.
    (a) => (o) => o.column === a.column && oldLines[o.line - 1] !== undefined && oldLines[o.line - 1] === newLines[a.line - 1],
  ];
  let left = after;
  for (const pass of passes) left = left.filter((a) => !take(a, pass(a)));
  const resolved = [...unmatched.values()].reduce((n, l) => n + l.length, 0);
  return { introduced: sortProblems(left), resolved };
}

/** Errors first, then warnings…; within a severity by line and column. */
export function sortProblems(list: Problem[]): Problem[] {
  return [...list].sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || a.line - b.line || a.column - b.column);
}
