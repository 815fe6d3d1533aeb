import { describe, expect, it } from 'vitest';
import type { FileProblemsView, ProblemView } from '../../shared/contract';
import { countOf, countWords, problemFiles } from './problemList';

const p = (severity: ProblemView['severity'], line: number, column = 1): ProblemView => ({ line, column, end_line: line, end_column: column + 1, severity, message: `${severity} at ${line}`, source: 'ts' });
const view = (file: string, problems: ProblemView[]): FileProblemsView => ({ file, server: 'typescript-language-server', problems });

describe('the Problems list', () => {
  const all = { 'src/b.ts': view('src/b.ts', [p('warning', 1), p('error', 9), p('error', 3, 5), p('error', 3, 2)]), 'a.ts': view('a.ts', [p('info', 2)]), 'clean.ts': view('clean.ts', []) };

  it('lists the files with problems by path, errors first and then by position', () => {
    const files = problemFiles(all);
    expect(files.map((f) => f.file)).toEqual(['a.ts', 'src/b.ts']);
    expect(files[1].problems.map((x) => `${x.severity}:${x.line}:${x.column}`)).toEqual(['error:3:2', 'error:3:5', 'error:9:1', 'warning:1:1']);
  });

  it('counts by severity over every file, in words', () => {
    expect([countOf(all, 'error'), countOf(all, 'warning'), countOf(all, 'info')]).toEqual([3, 1, 1]);
    expect(countWords(3, 1)).toBe('3 errors, 1 warning');
    expect(countWords(0, 0)).toBe('No problems');
    expect(countWords(1, 0)).toBe('1 error');
  });
});
