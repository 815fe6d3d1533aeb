// The text the model reads for a grep result: `file:line: text`, context lines as
// `file-line- text`, `--` between separate groups, and a footer that says how to get more.
import type { GrepResult } from './grep';

function pagingNote(total: number, offset: number, shown: number, unit: string): string | null {
  const rest = total - offset - shown;
  if (rest <= 0) return offset > 0 && shown === 0 ? `No ${unit} at offset ${offset}; there are ${total}.` : null;
  return `Showing ${unit} ${offset + 1}-${offset + shown} of ${total}; ${rest} more: call again with offset=${offset + shown}.`;
}

export function formatGrep(r: GrepResult): string {
  const out: string[] = [];
  let note: string | null;
  if (r.mode === 'files_with_matches') {
    out.push(...r.files);
    note = pagingNote(r.total, r.offset, r.files.length, 'files');
  } else if (r.mode === 'count') {
    out.push(...r.counts.map((c) => `${c.path}: ${c.count}`));
    if (r.total) out.push(`Total: ${r.totalCount} matching lines in ${r.total} files.`);
    note = pagingNote(r.total, r.offset, r.counts.length, 'files');
  } else {
    // Group separators only mean something when context lines are shown.
    const grouped = r.lines.some((l) => l.kind === 'context');
    let prev: { path: string; line: number } | null = null;
    for (const l of r.lines) {
      if (grouped && prev && (prev.path !== l.path || l.line !== prev.line + 1)) out.push('--');
      out.push(l.kind === 'match' ? `${l.path}:${l.line}: ${l.text}` : `${l.path}-${l.line}- ${l.text}`);
      prev = l;
    }
    note = pagingNote(r.total, r.offset, r.matchesShown, 'matches');
  }
  if (r.total === 0) out.push('No matches found.');
  if (note) out.push('', note);
  for (const n of r.notes) out.push(`Note: ${n}`);
  return out.join('\n');
}
