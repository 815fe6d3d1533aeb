// A language server's problems as Monaco markers: squiggles in the text, the message on hover,
// marks in the overview ruler. One owner name, so setting them again replaces the last set.
import type { ProblemView } from '../../shared/contract';
import { monaco } from './monacoSetup';

const OWNER = 'loupe-lsp';

const SEVERITY: Record<ProblemView['severity'], monaco.MarkerSeverity> = {
  error: monaco.MarkerSeverity.Error,
  warning: monaco.MarkerSeverity.Warning,
  info: monaco.MarkerSeverity.Info,
  hint: monaco.MarkerSeverity.Hint,
};

export function setProblemMarkers(model: monaco.editor.ITextModel, problems: readonly ProblemView[] | undefined): void {
  if (model.isDisposed()) return;
  monaco.editor.setModelMarkers(
    model,
    OWNER,
    (problems ?? []).map((p) => ({
      startLineNumber: p.line,
      startColumn: p.column,
      // A zero-width range would draw nothing: mark at least one character.
      endLineNumber: p.end_line,
      endColumn: p.end_line === p.line && p.end_column <= p.column ? p.column + 1 : p.end_column,
      severity: SEVERITY[p.severity],
      message: p.message,
      source: p.source,
      ...(p.code ? { code: p.code } : {}),
    })),
  );
}
