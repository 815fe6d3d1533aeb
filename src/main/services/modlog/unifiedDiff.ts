// Unified diffs of a modification (git's layout, from the `diff` package) and the per-hunk
// revert: hunks are numbered in the order the diff shows them, with git's 3 lines of context.
import { createTwoFilesPatch, structuredPatch } from 'diff';

export const DIFF_CONTEXT = 3;

/** `diff --git` style patch; null sides stand for a missing file (/dev/null). */
export function unifiedDiff(rel: string, before: string | null, after: string | null): string {
  const patch = createTwoFilesPatch(before === null ? '/dev/null' : `a/${rel}`, after === null ? '/dev/null' : `b/${rel}`, before ?? '', after ?? '', undefined, undefined, {
    context: DIFF_CONTEXT,
  });
  // jsdiff opens with an "=====" underline; git opens with its own header line instead.
  const body = patch.startsWith('=') ? patch.slice(patch.indexOf('\n') + 1) : patch;
  return `diff --git a/${rel} b/${rel}\n${body}`;
}

export function hunkCount(before: string, after: string): number {
  return structuredPatch('a', 'b', before, after, undefined, undefined, { context: DIFF_CONTEXT }).hunks.length;
}

/** Lines with their terminators, so joining them gives the text back byte for byte. */
export const splitKeepingEols = (text: string): string[] => text.match(/[^\n]*\n|[^\n]+$/g) ?? [];

/** `after` with hunk `index` put back to what `before` had there; null when there is no such hunk. */
export function revertOneHunk(before: string, after: string, index: number): string | null {
  const hunk = structuredPatch('a', 'b', before, after, undefined, undefined, { context: DIFF_CONTEXT }).hunks[index];
  if (!hunk) return null;
  const oldLines = splitKeepingEols(before);
  const newLines = splitKeepingEols(after);
  // jsdiff's starts are 1-based positions even for empty ranges.
  const replaced = oldLines.slice(hunk.oldStart - 1, hunk.oldStart - 1 + hunk.oldLines);
  newLines.splice(hunk.newStart - 1, hunk.newLines, ...replaced);
  return newLines.join('');
}

/** Lines a change adds and removes. */
export function diffCounts(before: string, after: string): { added: number; removed: number } {
  let removed = 0;
  let added = 0;
  for (const h of structuredPatch('a', 'b', before, after, undefined, undefined, { context: 0 }).hunks) {
    for (const l of h.lines) {
      if (l[0] === '-') removed++;
      else if (l[0] === '+') added++;
    }
  }
  return { added, removed };
}

/** Lines a change touches: the larger of the removed and added line counts. */
export function linesTouched(before: string, after: string): number {
  const { added, removed } = diffCounts(before, after);
  return Math.max(removed, added);
}
