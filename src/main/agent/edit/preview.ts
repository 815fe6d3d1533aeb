// The numbered before/after an edit answers with: the first changed region with 3 lines of context.
import { numberLines } from '../../services/files/lineNumbers';
import type { LineIndex } from './lines';

export interface Preview {
  before: string;
  after: string;
  /** First line of the change in the new file, 1-based. */
  lineNumber: number;
}

export const CONTEXT_LINES = 3;

function window(index: LineIndex, start: number, end: number): string {
  const text = index.text;
  const count = index.lineCount;
  const first = Math.max(1, Math.min(count, index.lineAt(start)) - CONTEXT_LINES);
  const lastLine = Math.min(count, index.lineAt(Math.max(start, end - 1)));
  const last = Math.min(count, lastLine + CONTEXT_LINES);
  const from = index.lineStart(first);
  const to = last < count ? index.lineStart(last + 1) - 1 : text.endsWith('\n') ? text.length - 1 : text.length;
  return numberLines(text.slice(from, to).split('\n'), first);
}

export function buildPreview(oldIndex: LineIndex, newIndex: LineIndex, oldStart: number, oldEnd: number, newStart: number, newEnd: number): Preview {
  return {
    before: window(oldIndex, oldStart, oldEnd),
    after: window(newIndex, newStart, newEnd),
    lineNumber: newIndex.lineAt(newStart),
  };
}
