// Step 6d: old_str indented differently from the file, by a uniform shift or a consistent
// tab↔space mapping. The mapping is derived from every line of the match and must hold for
// all of them; new_str is then re-indented the same way. No guessing beyond that.
import { findAll, isLineStart } from '../lines';
import { NONE, Unmapped, anchored, countAccepted, judge, type Range, type Strategy } from '../types';
import { keepUnchangedLines } from '../keepLines';
import { dropBlankTail, indentEnd, indentless, lstripLines, missingInner } from '../view';

type Reindent = (indent: string) => string | null;
type Unit = 'tab' | 2 | 4 | 8;

interface Levels {
  levels: number;
  rem: number;
}

/** Tabs then spaces for 'tab'; spaces only, in units of n, otherwise. */
function levelsOf(indent: string, unit: Unit): Levels | null {
  if (unit === 'tab') {
    let tabs = 0;
    while (indent[tabs] === '\t') tabs++;
    const rest = indent.slice(tabs);
    return /^ *$/.test(rest) ? { levels: tabs, rem: rest.length } : null;
  }
  if (!/^ *$/.test(indent)) return null;
  return { levels: Math.floor(indent.length / unit), rem: indent.length % unit };
}

const render = (l: Levels, unit: Unit) => (unit === 'tab' ? '\t'.repeat(l.levels) : ' '.repeat(l.levels * unit)) + ' '.repeat(l.rem);

function prefixShift(pairs: [string, string][]): Reindent | null {
  const [o0, f0] = pairs[0];
  if (f0.endsWith(o0)) {
    const p = f0.slice(0, f0.length - o0.length);
    if (pairs.every(([o, f]) => f === p + o)) return (s) => p + s;
  }
  if (o0.endsWith(f0)) {
    const p = o0.slice(0, o0.length - f0.length);
    if (pairs.every(([o, f]) => o === p + f)) return (s) => (s.startsWith(p) ? s.slice(p.length) : null);
  }
  return null;
}

const UNITS: Unit[] = [4, 2, 8, 'tab'];

function unitMapping(pairs: [string, string][]): Reindent | null {
  const fits: { from: Unit; to: Unit; shift: number }[] = [];
  for (const from of UNITS) {
    for (const to of UNITS) {
      if (from === to) continue;
      let shift: number | null = null;
      const ok = pairs.every(([o, f]) => {
        const a = levelsOf(o, from);
        const b = levelsOf(f, to);
        if (!a || !b || a.rem !== b.rem) return false;
        shift ??= b.levels - a.levels;
        return b.levels - a.levels === shift;
      });
      if (ok && shift !== null) fits.push({ from, to, shift });
    }
  }
  // A pure change of unit (shift 0) is the most natural reading; otherwise the first fit.
  const best = fits.find((f) => f.shift === 0) ?? fits[0];
  if (!best) return null;
  return (s) => {
    const l = levelsOf(s, best.from);
    if (!l || l.levels + best.shift < 0) return null;
    return render({ levels: l.levels + best.shift, rem: l.rem }, best.to);
  };
}

export function deriveReindent(oldLines: string[], fileLines: string[]): Reindent | null {
  const pairs: [string, string][] = [];
  oldLines.forEach((o, i) => {
    const f = fileLines[i];
    if (o.trim() && f.trim()) pairs.push([o.slice(0, indentEnd(o)), f.slice(0, indentEnd(f))]);
  });
  if (pairs.length === 0) return null;
  return prefixShift(pairs) ?? unitMapping(pairs);
}

/** Re-indents every non-blank line; null when some line cannot be mapped. */
export function reindent(text: string, map: Reindent): string | null {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) {
      out.push(line);
      continue;
    }
    const cut = indentEnd(line);
    const indent = map(line.slice(0, cut));
    if (indent === null) return null;
    out.push(indent + line.slice(cut));
  }
  return out.join('\n');
}

export const indentation: Strategy = {
  name: 'indentation',
  locate(input) {
    if (!input.oldStr.trim()) return NONE;
    const cut = dropBlankTail(input.oldStr, input.newStr);
    if (!cut) return NONE;
    const oldLines = cut.oldStr.split('\n');
    const old = lstripLines(cut.oldStr);
    // Cheap first: every inner line must be a line of the file once indentation is set aside.
    if (missingInner(input, old.split('\n'), 'indentless')) return NONE;
    const view = indentless(input);
    const vt = view.text;
    const len = input.text.length;
    const hits: { range: Range; map: Reindent | null }[] = [];
    for (const s of findAll(vt, old)) {
      if (!isLineStart(vt, s)) continue;
      const span = view.spanOf(s, old.length, len);
      // The first line's indentation is part of the match: it is what old_str re-indented.
      const start = input.lines.lineStart(input.lines.lineAt(span.start));
      if (!anchored(input, start)) continue;
      const map = deriveReindent(oldLines, input.text.slice(start, span.end).split('\n'));
      hits.push({ range: { start, end: span.end }, map: map && reindent(cut.newStr, map) !== null ? map : null });
    }
    if (hits.length === 0) return NONE;
    // Every place that matches once indentation is ignored counts: one the mapping cannot
    // explain still makes the others ambiguous (docs/architecture.md, the edit pipeline).
    if (hits.some((h) => h.map === null)) {
      if (countAccepted(hits.length, input)) return NONE;
      return { kind: 'ambiguous', strategy: 'indentation', ranges: hits.map((h) => h.range) };
    }
    return judge(input, {
      strategy: 'indentation',
      ranges: hits.map((h) => h.range),
      newStr: cut.newStr,
      correctedOld: input.text.slice(hits[0].range.start, hits[0].range.end),
      needle: old,
      // new_str was mapped when found; a line R4 later makes unmappable is refused, never written as given.
      render: (n) => {
        const newLines = n.split('\n');
        const out: string[] = [];
        for (const h of hits) {
          const rendered = reindent(n, h.map!);
          if (rendered === null) {
            const at = newLines.findIndex((l) => reindent(l, h.map!) === null);
            return new Unmapped(at, newLines[at], 'its indentation has no counterpart under the re-indentation that made old_str match');
          }
          out.push(keepUnchangedLines(input.text.slice(h.range.start, h.range.end).split('\n'), oldLines, newLines, (a, b) => a === b, rendered.split('\n')));
        }
        return out;
      },
    });
  },
};
