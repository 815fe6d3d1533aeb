import type { FileProblemsView, ProblemView } from '../../shared/contract';

const RANK: Record<ProblemView['severity'], number> = { error: 0, warning: 1, info: 2, hint: 3 };

export interface FileProblems {
  file: string;
  server: string | null;
  problems: ProblemView[];
}

/** The files with problems, by path; in each, errors first, then by position (as editors list them). */
export function problemFiles(all: Record<string, FileProblemsView>): FileProblems[] {
  return Object.values(all)
    .filter((v) => v.problems.length > 0)
    .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0))
    .map((v) => ({ file: v.file, server: v.server, problems: [...v.problems].sort((x, y) => RANK[x.severity] - RANK[y.severity] || x.line - y.line || x.column - y.column) }));
}

/** How many problems of a severity the servers report over every file they checked. */
export function countOf(all: Record<string, FileProblemsView>, severity: ProblemView['severity']): number {
  let n = 0;
  for (const v of Object.values(all)) for (const p of v.problems) if (p.severity === severity) n++;
  return n;
}

/** "2 errors, 1 warning"; "No problems". */
export function countWords(errors: number, warnings: number): string {
  const parts = [errors ? `${errors} error${errors === 1 ? '' : 's'}` : '', warnings ? `${warnings} warning${warnings === 1 ? '' : 's'}` : ''].filter(Boolean);
  return parts.length ? parts.join(', ') : 'No problems';
}
