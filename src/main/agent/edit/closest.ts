// What a refusal shows when old_str is not in the file: the region of the file closest to it
// and the first line where the two part, so the model's next try is right the first time.
// Finding the region is not matching: nothing here ever decides where an edit goes.
import { numberLines } from '../../services/files/lineNumbers';
import { alignLines } from '../../services/modlog/lineAlign';
import { clip } from '../../services/log/logger';
import type { EditInput } from './types';
import { readingsOf } from './locate';

/** Lines of old_str looked at; a longer old_str is judged by its start. */
const MAX_OLD_LINES = 400;
/** A line the file has more often than this says nothing about where old_str belongs. */
const MAX_SAME_LINES = 32;
/** How far around the voted place the alignment looks for lines left out or added. */
const SLACK = 8;
const CONTEXT = 3;

export type Difference =
  /** old_str's line stands where the file has another line (or the same one, spaced otherwise). */
  | { kind: 'changed'; oldLine: number; fileLine: number; whitespaceOnly: boolean }
  /** The file has lines here that old_str leaves out. */
  | { kind: 'omitted'; oldLine: number; fileLine: number; count: number }
  /** old_str has a line the file does not have here. */
  | { kind: 'extra'; oldLine: number; fileLine: number };

export interface Closest {
  /** The region of the file, 1-based inclusive lines. */
  first: number;
  last: number;
  /** Lines of old_str found in it (ignoring the blanks around each line). */
  agree: number;
  oldCount: number;
  difference: Difference | null;
  /** The reading of old_str that came closest ('' as given). */
  reading: string;
  /** The line the reading's line numbers put old_str at, when it had them. */
  anchor?: number;
  oldLines: string[];
}

const key = (s: string) => s.trim();
/** The lines of `s`; a final line break starts no line. */
const bodyLines = (s: string) => {
  const lines = s.split('\n');
  return lines.length > 1 && lines[lines.length - 1] === '' ? lines.slice(0, -1) : lines;
};

/** The closest region for one reading of old_str, or null when no line of it is in the file. */
function closestFor(fileLines: string[], oldStr: string): Omit<Closest, 'reading'> | null {
  const oldLines = bodyLines(oldStr).slice(0, MAX_OLD_LINES);
  const wanted = new Map<string, number[]>();
  oldLines.forEach((l, i) => {
    if (key(l)) wanted.set(key(l), [...(wanted.get(key(l)) ?? []), i]);
  });
  const seen = new Map<string, number[]>();
  fileLines.forEach((l, j) => {
    const k = key(l);
    if (wanted.has(k)) seen.set(k, [...(seen.get(k) ?? []), j]);
  });
  // Each line of old_str found in the file votes for where old_str would start.
  const votes = new Map<number, number>();
  for (const [k, at] of seen) {
    if (at.length > MAX_SAME_LINES) continue;
    for (const j of at) for (const i of wanted.get(k)!) votes.set(j - i, (votes.get(j - i) ?? 0) + 1);
  }
  let best: number | null = null;
  for (const [s, n] of votes) if (best === null || n > votes.get(best)! || (n === votes.get(best)! && s < best)) best = s;
  if (best === null) return null;
  // From the earliest start a line of old_str votes for near the best (lines before a left-out
  // line vote one earlier than those after it), not before: blank lines there would pair up.
  let from = best;
  for (const [s] of votes) if (s < from && s >= best - SLACK) from = s;
  from = Math.max(0, from);
  const to = Math.min(fileLines.length, best + oldLines.length + SLACK);
  const window = fileLines.slice(from, to);
  const origins = alignLines(window.map(key), oldLines.map(key));
  const matched = origins.map((o) => (o.kind === 'equal' ? from + o.from : -1));
  // The region's ends come from lines with text: a blank line pairs with any blank line.
  const anchors = matched.flatMap((m, i) => (m !== -1 && key(oldLines[i]) ? [i] : []));
  if (anchors.length === 0) return null;
  const firstHit = anchors[0];
  const lastHit = anchors[anchors.length - 1];
  const first = Math.max(0, matched[firstHit] - firstHit);
  const last = Math.min(fileLines.length - 1, matched[lastHit] + (oldLines.length - 1 - lastHit));
  return {
    first: first + 1,
    last: last + 1,
    agree: matched.filter((m) => m !== -1).length,
    oldCount: oldLines.length,
    difference: firstDifference(fileLines, oldLines, matched, first),
    oldLines,
  };
}

/** Walks old_str in order against the region: the first line that is not where the file has it. */
function firstDifference(fileLines: string[], oldLines: string[], matched: number[], first: number): Difference | null {
  let expect = first;
  for (let i = 0; i < oldLines.length; i++) {
    const m = matched[i];
    if (m === -1) {
      const at = Math.min(expect, fileLines.length - 1);
      // A line of old_str with no counterpart at all, when the next line of old_str is the file's line here.
      const next = matched.slice(i + 1).find((x) => x !== -1);
      if (next === expect) return { kind: 'extra', oldLine: i + 1, fileLine: at + 1 };
      return { kind: 'changed', oldLine: i + 1, fileLine: at + 1, whitespaceOnly: false };
    }
    if (m > expect) return { kind: 'omitted', oldLine: i + 1, fileLine: expect + 1, count: m - expect };
    const o = oldLines[i];
    const f = fileLines[m];
    const same = i === 0 && oldLines.length > 1 ? f.endsWith(o) : i === oldLines.length - 1 && oldLines.length > 1 ? f.startsWith(o) : oldLines.length === 1 ? f.includes(o) : f === o;
    if (!same) return { kind: 'changed', oldLine: i + 1, fileLine: m + 1, whitespaceOnly: true };
    expect = m + 1;
  }
  return null;
}

/** The closest region over every reading of the request (as given, unescaped, without line numbers). */
export function closestRegion(input: EditInput): Closest | null {
  const fileLines = bodyLines(input.text);
  let best: Closest | null = null;
  for (const r of readingsOf({ ...input, anchor: undefined })) {
    const c = closestFor(fileLines, r.input.oldStr);
    // Of two readings that find as many lines, the one that differs nowhere tells more.
    if (c && (!best || c.agree > best.agree || (c.agree === best.agree && !c.difference && best.difference))) {
      best = { ...c, reading: r.name, ...(r.input.anchor !== undefined ? { anchor: r.input.anchor } : {}) };
    }
  }
  return best;
}

/**
 * What a model cannot settle better than the message can: old_str is all in one region of the
 * file but its line numbers or spacing (nothing to correct but where to look), or, three
 * lines or more long, but for one line changed, left out or added (a content slip: a model's
 * answer would quietly change the line the caller got wrong).
 */
export function isNearMiss(c: Closest | null): boolean {
  if (!c) return false;
  const regionCount = c.last - c.first + 1;
  if (c.agree === c.oldCount && regionCount === c.oldCount) return true;
  if (c.oldCount < 3 || c.agree < 2) return false;
  return c.oldCount - c.agree + (regionCount - c.agree) <= 2;
}

const show = (s: string) => JSON.stringify(clip(s, 160));

/** The refusal's explanation: where the closest text is, and what differs first. */
export function describeClosest(c: Closest, text: string, rel: string): string {
  const fileLines = bodyLines(text);
  const read = c.reading ? ` (read as ${c.reading})` : '';
  const out: string[] = [];
  const d = c.difference;
  if (!d) {
    if (c.anchor !== undefined && c.anchor !== c.first) {
      return `Without its line numbers, old_str is at line ${c.first} of ${rel}, but its numbers say line ${c.anchor}. Line numbers must be the file's own (as read_file shows them now); or leave them out.`;
    }
    return `old_str${read} matches lines ${c.first}-${c.last} of ${rel} only once the spacing is ignored; copy those lines exactly.`;
  }
  const region = c.first === c.last ? `line ${c.first}` : `lines ${c.first}-${c.last}`;
  out.push(`The closest text is ${region} of ${rel}${read}; the first difference is at line ${d.fileLine}:`);
  const fileText = fileLines[d.fileLine - 1] ?? '';
  const oldText = c.oldLines[d.oldLine - 1];
  if (d.kind === 'changed') {
    out.push(`  old_str line ${d.oldLine}: ${show(oldText)}`, `  file line ${d.fileLine}: ${show(fileText)}`);
    if (d.whitespaceOnly) out.push('  (they differ only in spacing)');
  } else if (d.kind === 'omitted') {
    out.push(`  the file has ${d.count === 1 ? 'this line' : `${d.count} lines`} here that old_str leaves out, before old_str line ${d.oldLine}:`, `  file line ${d.fileLine}: ${show(fileText)}`);
  } else {
    out.push(`  old_str line ${d.oldLine} is not in the file here: ${show(oldText)}`, `  the file goes on with line ${d.fileLine}: ${show(fileText)}`);
  }
  const from = Math.max(1, d.fileLine - CONTEXT);
  const to = Math.min(fileLines.length, d.fileLine + CONTEXT);
  out.push(numberLines(fileLines.slice(from - 1, to), from));
  out.push('Copy old_str from the file exactly, whitespace included (read_file with offset and limit shows more), or send a shorter old_str around the lines you change.');
  return out.join('\n');
}
