import { structuredPatch } from 'diff';

export interface Hunk {
  /** 0-based, in the order of the modification's unified diff: what `modlog.revertHunk` takes. */
  index: number;
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  added: number;
  removed: number;
  /** Context lines before the first change. */
  leadingContext: number;
  /** The first changed line, for the list. */
  preview: string;
}

/**
 * The hunks of before → after, computed exactly as the host does (the `diff` package's
 * structuredPatch with 3 lines of context), so index i here is hunk i there.
 */
export function computeHunks(file: string, before: string | null, after: string | null): Hunk[] {
  const patch = structuredPatch(file, file, before ?? '', after ?? '', '', '', { context: 3 });
  return patch.hunks.map((h, index) => {
    let added = 0;
    let removed = 0;
    let preview = '';
    let leadingContext = 0;
    for (const line of h.lines) {
      if (line[0] === ' ' && added + removed === 0) leadingContext++;
      if (line[0] === '+') added++;
      else if (line[0] === '-') removed++;
      else continue;
      if (!preview && line.slice(1).trim()) preview = line.slice(1).trim();
    }
    return { index, oldStart: h.oldStart, oldLines: h.oldLines, newStart: h.newStart, newLines: h.newLines, added, removed, leadingContext, preview };
  });
}
