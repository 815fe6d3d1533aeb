// Lines the request leaves as they were keep the file's own bytes. A view strategy matches
// old_str against a normalised file (indentation, trailing blanks, typography stripped), so a
// line that old_str and new_str agree on must be written back as the file had it, not as the
// model typed it: what the model did not mean to change, the edit does not change.
import { alignLines, type Origin } from '../../services/modlog/lineAlign';

/**
 * `rendered` (new_str as the strategy turned it into file text, line for line) with each line
 * that is the same in old_str and new_str replaced by the file's line it stands for.
 * `fileLines` are the matched region's lines, one for each of `oldLines`; `same(newLine,
 * oldLine)` says whether the request changed a line.
 */
export function keepUnchangedLines(
  fileLines: string[],
  oldLines: string[],
  newLines: string[],
  same: (newLine: string, oldLine: string) => boolean,
  rendered: string[] = newLines,
): string {
  // The empty piece after a final line break, and an empty new_str, are no lines: never paired.
  const hasTail = (xs: string[]) => xs.length > 1 && xs[xs.length - 1] === '';
  const body = (xs: string[]) => (hasTail(xs) ? xs.slice(0, -1) : xs);
  if (newLines.length === 1 && newLines[0] === '') return rendered.join('\n');
  const file = body(fileLines);
  const old = body(oldLines);
  const fresh = body(newLines);
  const out = rendered.slice(0, fresh.length);
  if (file.length !== old.length || rendered.length !== newLines.length) return rendered.join('\n');
  for (const [j, from] of keptLines(old, fresh, same)) out[j] = file[from];
  return [...out, ...rendered.slice(fresh.length)].join('\n');
}

/**
 * Which new line keeps which old line's bytes. Aligning on the loose `same` alone cannot tell
 * lines apart that it makes equal (every blank or whitespace-only line, under trailing
 * whitespace), so deleting one of them could keep the wrong one. The model's own text can:
 * align on exact equality first, count a changed line as kept where `same` holds, and take the
 * loose alignment only when it keeps more lines.
 */
function keptLines(old: string[], fresh: string[], same: (newLine: string, oldLine: string) => boolean): [number, number][] {
  const kept = (origins: Origin[]): [number, number][] =>
    origins.flatMap((o, j): [number, number][] => (o.kind !== 'inserted' && (o.kind === 'equal' || same(fresh[j], old[o.from])) ? [[j, o.from]] : []));
  const exact = kept(alignLines(old, fresh));
  const loose = kept(alignLines(old, fresh, (o, n) => same(n, o)));
  return loose.length > exact.length ? loose : exact;
}
