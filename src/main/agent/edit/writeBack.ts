// Step 8's last check: the pipeline's splices become the file's new bytes only if they change
// nothing but the lines each match covers (the invariant of services/modlog/editInvariant).
// The lines a match covers are counted from the text the strategy found, not from the range
// it mapped back, so a mapping that reaches past its match is caught here.
import { EditInvariantError, editInvariantViolations, type LineSpan } from '../../services/modlog/editInvariant';
import { spliceOriginal, type Canonical, type Splice } from './canonical';
import type { LineIndex } from './lines';

const count = (s: string, c: string) => s.split(c).length - 1;

/** The lines of the file each splice may change, merged where they share lines. */
export function editSpans(text: string, lines: LineIndex, splices: Splice[], needle: string): LineSpan[] {
  const spans: (LineSpan & { count: number })[] = [];
  for (const s of splices) {
    const first = lines.lineAt(s.start);
    let last = first + count(needle, '\n') - (needle.endsWith('\n') ? 1 : 0);
    // A match that ends with its line break, replaced by text that does not: the next line joins it.
    if (needle.endsWith('\n') && !s.replacement.endsWith('\n') && last < lines.lineCount) last++;
    const region = text.slice(s.start, s.end);
    const prev = spans[spans.length - 1];
    if (prev && first <= prev.last) {
      prev.count += Math.max(last, prev.last) - prev.last + count(s.replacement, '\n') - count(region, '\n');
      prev.last = Math.max(last, prev.last);
    } else spans.push({ first, last, count: last - first + 1 + count(s.replacement, '\n') - count(region, '\n') });
  }
  // The last span's count is left to the checker: the final newline has its own rule.
  return spans.map((sp, i) => (i === spans.length - 1 ? { first: sp.first, last: sp.last } : sp));
}

/** The file's new text, or EDIT_INVARIANT_VIOLATED when it would change more than the edit covers. */
export function writeBack(raw: string, canon: Canonical, lines: LineIndex, splices: Splice[], needle: string, rel: string): string {
  const written = spliceOriginal(canon, splices);
  const problems = editInvariantViolations(raw, written, editSpans(canon.text, lines, splices, needle));
  if (problems.length) {
    throw new EditInvariantError(rel, problems, 'This is a fault in the edit tool, not in your request; read the file again and retry with old_str copied exactly, or change whole lines with code_modify.');
  }
  return written;
}
