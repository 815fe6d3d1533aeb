import { memo, useState } from 'react';
import { useApp, type ChatItem } from '../store';

type ToolItem = Extract<ChatItem, { kind: 'tool' }>;

const WRITES = new Set(['edit_file', 'write_file', 'code_modify', 'code_rollback']);

/** The one line that says what a call does: the command, the path, the pattern, the URL. */
export function toolSummary(tool: string, args: unknown, argsText = ''): string {
  if (args && typeof args === 'object') {
    const a = args as Record<string, unknown>;
    const main = a.command ?? a.path ?? a.file_path ?? a.pattern ?? a.url ?? a.modification_id ?? a.test_command ?? a.test_file ?? '';
    return String(main);
  }
  if (typeof args === 'string') return args;
  // Still streaming: the command as far as it has arrived.
  const m = argsText.match(/"(?:command|path|file_path|pattern|url)"\s*:\s*"((?:[^"\\]|\\.)*)/);
  return m ? m[1] : tool;
}

function pretty(args: unknown, argsText: string): string {
  if (args === undefined) return argsText;
  if (typeof args === 'string') return args;
  return JSON.stringify(args, null, 2);
}

export const ToolCard = memo(function ToolCard({ item }: { item: ToolItem }) {
  const showModificationInReview = useApp((s) => s.showModificationInReview);
  const waiting = useApp((s) => item.status === 'running' && s.approvals.some((a) => a.call_id === item.id));
  const isBash = item.tool === 'bash' || item.tool === 'run_tests';
  const [showArgs, setShowArgs] = useState(false);
  // bash: its live output; edits: the numbered preview of the result.
  const [showOutput, setShowOutput] = useState(isBash || WRITES.has(item.tool));
  const modId = typeof item.data?.modification_id === 'string' ? item.data.modification_id : null;
  const summary = toolSummary(item.tool, item.args, item.argsText);
  const label = waiting ? 'waiting for approval' : item.status === 'running' ? 'running' : item.status === 'done' ? 'done' : 'failed';
  return (
    <div className={`tool-card tool-${item.status}${waiting ? ' tool-waiting' : ''}`} data-testid="tool-call" data-tool={item.tool} data-status={item.status}>
      <div className="tool-card-head">
        <span className={`tool-dot ${item.status}`} aria-hidden="true" />
        <span className="tool-name">{item.tool}</span>
        <code className="tool-summary" title={summary}>
          {summary}
        </code>
        <span className="tool-state">
          {label}
          {item.durationMs !== undefined ? ` · ${item.durationMs < 1000 ? `${Math.round(item.durationMs)} ms` : `${(item.durationMs / 1000).toFixed(1)} s`}` : ''}
        </span>
      </div>
      <div className="tool-card-actions">
        <button type="button" className="link-btn" onClick={() => setShowArgs((v) => !v)}>
          {showArgs ? 'Hide arguments' : 'Arguments'}
        </button>
        {(item.output || item.status !== 'running') && (
          <button type="button" className="link-btn" onClick={() => setShowOutput((v) => !v)}>
            {showOutput ? 'Hide output' : 'Output'}
          </button>
        )}
        {modId && WRITES.has(item.tool) && (
          <button
            type="button"
            className="link-btn"
            data-testid="tool-call-modification"
            title={`Open ${modId} in the diff view and the Changes tab`}
            onClick={() => void showModificationInReview(modId)}
          >
            Open diff
          </button>
        )}
      </div>
      {showArgs && <pre className="tool-args">{pretty(item.args, item.argsText)}</pre>}
      {item.error && (
        <div className="tool-error-text" data-testid="tool-call-error">
          {item.error}
        </div>
      )}
      {showOutput && item.output && (
        <pre className="tool-output" data-testid="tool-call-output">
          {item.output}
        </pre>
      )}
    </div>
  );
});
