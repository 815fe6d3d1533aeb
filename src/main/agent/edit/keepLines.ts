// Lines the request leaves as they were keep the file's own bytes. A view strategy matches
// old_str against a normalised file (indentation, trailing blanks, typography stripped), so a
// line that old_str and new_str agree on must be written back as the file had it, not as the
// model typed it: what the model did not mean to change, the edit does not change.
import { alignLines } from '../../services/modlog/lineAlign';

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
  if (fileLines.length !== oldLines.length || rendered.length !== newLines.length) return rendered.join('\n');
  const out = [...rendered];
  alignLines(oldLines, newLines, (o, n) => same(n, o)).forEach((origin, j) => {
    if (origin.kind === 'equal') out[j] = fileLines[origin.from];
  });
  return out.join('\n');
}
