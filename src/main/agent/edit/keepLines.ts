// Lines the request leaves as they were keep the file's own bytes. A view strategy matches
// old_str against a normalised file (indentation, trailing blanks, typography stripped), so a
// line that old_str and new_str agree on must be written back as the file had it, not as the
// model typed it: what the model did not mean to change, the edit does not change. The lines it
// does change go through the reading's own mapping, line by line (`carryLines`).
import { alignLines, type Origin } from '../../services/modlog/lineAlign';
import { Unmapped } from './types';

/** How a reading carries the lines of new_str that are not old_str's lines left alone. */
export interface Carry {
  /**
   * New line `j`, a rewrite of old line `from`: its text in the file, or why that is not clear.
   * `paired`: which old line it rewrites is certain, because its hunk writes as many lines as it
   * replaces (the k-th new line stands for the k-th old one); otherwise the pairing is a guess.
   */
  changed(line: string, from: number, j: number, paired: boolean): string | Unmapped;
  /** New line `j`, with no counterpart in old_str. */
  inserted(line: string, j: number): string | Unmapped;
}

/** Every line as given: the model's text is the file's text (a view that changed no line's shape). */
const asGiven: Carry = { changed: (line) => line, inserted: (line) => line };

/**
 * new_str line by line in the file's terms: each line that is the same in old_str and new_str
 * (`same(newLine, oldLine)`) becomes the file's line it stands for, the others go through
 * `carry`. `fileLines` are the matched region's lines, one for each of `oldLines`.
 */
export function carryLines(fileLines: string[], oldLines: string[], newLines: string[], same: (newLine: string, oldLine: string) => boolean, carry: Carry = asGiven): string | Unmapped {
  // The empty piece after a final line break, and an empty new_str, are no lines: never paired.
  const hasTail = (xs: string[]) => xs.length > 1 && xs[xs.length - 1] === '';
  const body = (xs: string[]) => (hasTail(xs) ? xs.slice(0, -1) : xs);
  if (newLines.length === 1 && newLines[0] === '') return '';
  const file = body(fileLines);
  const old = body(oldLines);
  const fresh = body(newLines);
  // Without one file line per old line nothing pairs: every line is the reading's to place.
  const origins: Origin[] = file.length === old.length ? chooseAlignment(old, fresh, same) : fresh.map(() => ({ kind: 'inserted' }));
  const paired = lineForLine(origins, old.length);
  const out: string[] = [];
  for (let j = 0; j < fresh.length; j++) {
    const o = origins[j];
    const line = o.kind === 'inserted' ? carry.inserted(fresh[j], j) : o.kind === 'equal' || same(fresh[j], old[o.from]) ? file[o.from] : carry.changed(fresh[j], o.from, j, paired[j]);
    if (line instanceof Unmapped) return line;
    out.push(line);
  }
  return [...out, ...newLines.slice(fresh.length)].join('\n');
}

/**
 * `rendered` (new_str as the strategy turned it into file text, line for line) with each line
 * that is the same in old_str and new_str replaced by the file's line it stands for.
 */
export function keepUnchangedLines(
  fileLines: string[],
  oldLines: string[],
  newLines: string[],
  same: (newLine: string, oldLine: string) => boolean,
  rendered: string[] = newLines,
): string {
  if (rendered.length !== newLines.length) return rendered.join('\n');
  const fromRendered: Carry = { changed: (_l, _f, j) => rendered[j], inserted: (_l, j) => rendered[j] };
  return carryLines(fileLines, oldLines, newLines, same, fromRendered) as string;
}

/** For each new line, whether it lies in a hunk that writes as many lines as it replaces. */
function lineForLine(origins: Origin[], oldCount: number): boolean[] {
  const out = origins.map(() => false);
  let prev = -1;
  let j = 0;
  while (j < origins.length) {
    const o = origins[j];
    if (o.kind === 'equal') {
      prev = o.from;
      j++;
      continue;
    }
    let end = j;
    while (end < origins.length && origins[end].kind !== 'equal') end++;
    const after = origins[end];
    const next = after?.kind === 'equal' ? after.from : oldCount;
    out.fill(next - prev - 1 === end - j, j, end);
    j = end;
  }
  return out;
}

/**
 * Which new line stands for which old line. Aligning on the loose `same` alone cannot tell
 * lines apart that it makes equal (every blank or whitespace-only line, under trailing
 * whitespace), so deleting one of them could keep the wrong one. The model's own text can:
 * align on exact equality first, count a changed line as kept where `same` holds, and take the
 * loose alignment only when it keeps more lines.
 */
function chooseAlignment(old: string[], fresh: string[], same: (newLine: string, oldLine: string) => boolean): Origin[] {
  const kept = (origins: Origin[]) => origins.filter((o, j) => o.kind !== 'inserted' && (o.kind === 'equal' || same(fresh[j], old[o.from]))).length;
  const exact = alignLines(old, fresh);
  const loose = alignLines(old, fresh, (o, n) => same(n, o));
  return kept(loose) > kept(exact) ? loose : exact;
}
