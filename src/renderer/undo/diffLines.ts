import { structuredPatch } from 'diff';

export interface DiffLine {
  kind: 'add' | 'del' | 'ctx' | 'gap';
  text: string;
}

/** A unified diff of two texts as lines to draw (3 lines of context, a gap between hunks). */
export function diffLines(before: string, after: string): DiffLine[] {
  const out: DiffLine[] = [];
  for (const [i, h] of structuredPatch('a', 'b', before, after, '', '', { context: 3 }).hunks.entries()) {
    if (i > 0 || h.oldStart > 1) out.push({ kind: 'gap', text: '' });
    for (const l of h.lines) {
      if (l.startsWith('\\')) continue;
      out.push({ kind: l[0] === '+' ? 'add' : l[0] === '-' ? 'del' : 'ctx', text: l.slice(1) });
    }
  }
  return out;
}
