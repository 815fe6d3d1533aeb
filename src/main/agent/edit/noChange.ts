// A call whose new_str is its old_str changes nothing, and a model that is not told why sends
// it again. The refusal says so plainly and, when the file holds the text, that it already
// does (and where), so there is nothing left to do.
import { findAll, LineIndex } from './lines';
import { search } from './locate';

/**
 * Why the call changes nothing. `text` is the file's canonical text when the caller may learn
 * what it holds (it read the file, and the file is as read), else null.
 */
export function noChangeReason(text: string | null, oldStr: string, lineEndingsOnly: boolean): string {
  const same = lineEndingsOnly ? 'old_str and new_str differ only in line endings, which the file keeps as they are' : 'old_str and new_str are identical';
  if (text === null) return `${same}, so this call changes nothing`;
  const lines = new LineIndex(text);
  let at = findAll(text, oldStr, 10).map((s) => lines.lineAt(s));
  let how = '';
  if (at.length === 0) {
    const found = search({ text, oldStr, newStr: oldStr, replaceAll: true, lines });
    if (found.kind === 'found') {
      at = found.located.ranges.map((r) => lines.lineAt(r.start));
      how = ` (read with ${found.located.strategy})`;
    } else if (found.kind === 'ambiguous') at = found.lines;
  }
  if (at.length === 0) return `${same}, so this call changes nothing; and old_str is not in the file as given`;
  const where = [...new Set(at)];
  return `${same}, and the file already holds this text${how} at line${where.length === 1 ? '' : 's'} ${where.join(', ')}`;
}
