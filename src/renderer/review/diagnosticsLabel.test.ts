// "+2 errors" on a timeline row and the diff's header: what a change introduced, per its server.
import { describe, expect, it } from 'vitest';
import type { DiagnosticsView, ProblemView } from '../../shared/contract';
import { diagnosticsLabel } from './format';

const problem = (line: number, severity: ProblemView['severity'], message: string): ProblemView => ({ line, column: 1, end_line: line, end_column: 2, severity, message, source: 'typescript' });

function view(introduced: ProblemView[], over: Partial<DiagnosticsView> = {}): DiagnosticsView {
  const errors = introduced.filter((p) => p.severity === 'error').length;
  const warnings = introduced.filter((p) => p.severity === 'warning').length;
  return { introduced, resolved_count: 0, available: true, introduced_count: introduced.length, errors, warnings, server: 'typescript-language-server', ...over };
}

describe('diagnosticsLabel', () => {
  it('counts the errors a change introduced, and lists them in the title', () => {
    const one = diagnosticsLabel({ diagnostics: view([problem(5, 'error', "Type 'string' is not assignable to type 'number'.")]) });
    expect(one).toEqual({ label: '+1 error', tone: 'error', title: "This change introduced, per typescript-language-server:\nline 5: Type 'string' is not assignable to type 'number'." });
    const two = diagnosticsLabel({ diagnostics: view([problem(1, 'error', 'a'), problem(2, 'warning', 'w'), problem(3, 'error', 'b\nmore')]) });
    expect(two?.label).toBe('+2 errors');
    expect(two?.title.split('\n').slice(1)).toEqual(['line 1: a', 'line 3: b']);
  });

  it('says warnings only when no error came, and more than five as "… and N more"', () => {
    expect(diagnosticsLabel({ diagnostics: view([problem(1, 'warning', 'w')]) })).toMatchObject({ label: '+1 warning', tone: 'warning' });
    const many = Array.from({ length: 7 }, (_, i) => problem(i + 1, 'error', `e${i}`));
    expect(diagnosticsLabel({ diagnostics: view(many) })?.title.split('\n').at(-1)).toBe('… and 2 more');
  });

  it('says nothing when nothing was introduced, only hints came, or no server serves the file', () => {
    expect(diagnosticsLabel({ diagnostics: view([]) })).toBeNull();
    expect(diagnosticsLabel({ diagnostics: view([problem(1, 'hint', 'h')]) })).toBeNull();
    expect(diagnosticsLabel({})).toBeNull();
  });

  it('says "unchecked", with the reason, when the server could not say in time (as the tool result did)', () => {
    const d = diagnosticsLabel({ diagnostics: view([], { available: false, reason: 'timed out' }) });
    expect(d).toMatchObject({ label: 'unchecked', tone: 'unknown' });
    expect(d?.title).toContain('(timed out)');
  });
});
