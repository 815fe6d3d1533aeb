// How a write tool's result ends (docs/architecture.md, language servers): the problems the
// write introduced, errors first, at their lines in the file as it is now (as read_file numbers
// them), or "no new problems"; a line saying they are unavailable when the server could not say;
// nothing when no server serves the file.
import { z } from 'zod';
import type { DiagnosticsView, ProblemView } from '../../../shared/contract';
import type { ToolResult } from './types';

export const problemSchema = z.looseObject({
  line: z.number().int(),
  column: z.number().int(),
  severity: z.enum(['error', 'warning', 'info', 'hint']),
  message: z.string(),
  source: z.string(),
});

/** A write tool's `data.diagnostics`. */
export const diagnosticsSchema = z
  .looseObject({
    introduced: z.array(problemSchema).describe('At most 20, errors first; lines as read_file numbers them now.'),
    resolved_count: z.number().int(),
    available: z.boolean().describe('False when the language server could not say in time.'),
  })
  .describe('The problems the language server says this write introduced; absent when no server serves the file.');

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function problemLine(p: ProblemView, file: string): string {
  const where = `${p.file ?? file}:${p.line}:${p.column}`;
  const by = `${p.source}${p.code ? ` ${p.code}` : ''}`;
  return `  ${where} ${p.severity}: ${p.message.replace(/\s*\n\s*/g, ' — ')} (${by})`;
}

export function diagnosticsText(v: DiagnosticsView, file: string): string {
  if (!v.available) return `Diagnostics unavailable (${v.server}: ${v.reason ?? 'no answer'}).`;
  const resolved = v.resolved_count ? `${plural(v.resolved_count, 'problem')} resolved, ` : '';
  if (!v.introduced_count) return `Diagnostics: ${resolved}no new problems`;
  const counts = [v.errors && plural(v.errors, 'error'), v.warnings && plural(v.warnings, 'warning'), v.introduced_count - v.errors - v.warnings && plural(v.introduced_count - v.errors - v.warnings, 'note')].filter(Boolean);
  const more = v.introduced_count > v.introduced.length ? [`  … and ${v.introduced_count - v.introduced.length} more`] : [];
  return [`New problems from this edit (${counts.join(', ')}${v.resolved_count ? `; ${plural(v.resolved_count, 'problem')} resolved` : ''}):`, ...v.introduced.map((p) => problemLine(p, file)), ...more].join('\n');
}

/** The result with the write's problems at the end of its text and in `data.diagnostics`. */
export function withDiagnostics(result: ToolResult, view: DiagnosticsView | undefined, file: string): ToolResult {
  if (!view) return result;
  const said = diagnosticsText(view, file);
  return { ...result, output: `${result.output}\n${said}`, ...(result.for_person !== undefined ? { for_person: `${result.for_person}\n${said}` } : {}), data: { ...result.data, diagnostics: view } };
}
