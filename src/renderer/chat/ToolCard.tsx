import { memo, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useApp, type ChatItem } from '../store';
import { compactDiffOf } from './compactDiff';
import { CompactDiffView } from './CompactDiffView';
import { HookDecision } from './HookDecision';
import { diagnosticsLabel } from '../review/format';
import type { DiagnosticsView } from '../../shared/contract';

type ToolItem = Extract<ChatItem, { kind: 'tool' }>;

function pretty(args: unknown, argsText: string): string {
  if (args === undefined) return argsText;
  if (typeof args === 'string') return args;
  return JSON.stringify(args, null, 2);
}

/** What the sandbox stopped, as the runner reported it (a sentence, a list, or fields). */
function describeBlocked(blocked: unknown): string {
  if (typeof blocked === 'string') return blocked;
  if (Array.isArray(blocked)) return blocked.map(describeBlocked).join('; ');
  return JSON.stringify(blocked);
}

/** The hosts the sandbox's proxy let through or refused (bash data.network), when there are any. */
function networkOf(v: unknown): { reached: string[]; refused: { host: string; reason: string }[] } | null {
  if (!v || typeof v !== 'object') return null;
  const n = v as { reached?: unknown; refused?: unknown };
  const reached = Array.isArray(n.reached) ? n.reached.filter((x): x is string => typeof x === 'string') : [];
  const refused = Array.isArray(n.refused) ? n.refused.filter((x): x is { host: string; reason: string } => typeof x?.host === 'string' && typeof x?.reason === 'string') : [];
  return reached.length || refused.length ? { reached, refused } : null;
}

export const ToolCard = memo(function ToolCard({ item }: { item: ToolItem }) {
  const showModificationInReview = useApp((s) => s.showModificationInReview);
  const revealProcess = useApp((s) => s.revealProcess);
  const openModification = useApp((s) => s.openModification);
  const waiting = useApp((s) => item.status === 'running' && s.approvals.some((a) => a.call_id === item.id));
  const [showArgs, setShowArgs] = useState(false);
  // Commands: their live output; edits: the numbered preview of the result.
  const modId = typeof item.data?.modification_id === 'string' ? item.data.modification_id : null;
  // A background start (bash run_in_background) links to its row in the Processes pane.
  const procId = typeof item.data?.process_id === 'string' ? item.data.process_id : null;
  const network = networkOf(item.data?.network);
  // What the edit introduced, per the language server: the count opens the Problems list.
  const introduced = item.effect === 'write' && item.status === 'done' && item.data?.diagnostics ? diagnosticsLabel({ diagnostics: item.data.diagnostics as DiagnosticsView }) : null;
  const showProblems = useApp((s) => s.showProblems);
  // Edits show what they changed (−/+); their numbered preview stays one click away.
  const diff = useMemo(() => (item.effect === 'write' && item.status === 'done' ? compactDiffOf(item.args, item.data) : null), [item.effect, item.status, item.args, item.data]);
  const [outputChoice, setOutputChoice] = useState<boolean | null>(null);
  // A failed read or edit says why once (the error line); the model's fuller wording stays behind Output.
  const showOutput = outputChoice ?? (item.effect === 'execute' || (item.effect === 'write' && !diff && item.status !== 'error'));
  const outputRef = useRef<HTMLPreElement>(null);
  const atTail = useRef(true);
  useLayoutEffect(() => {
    // A build log is read from its end: long output opens on its tail and follows it while it
    // streams, unless the person scrolled up to read.
    const el = outputRef.current;
    if (el && atTail.current) el.scrollTop = el.scrollHeight;
  }, [showOutput, item.output]);
  const summary = item.summary;
  // The model's own words for what a command does (bash's `description`), read before the command.
  const description = descriptionOf(item.args);
  const mcp = mcpServerOf(item.tool, item.data);
  // Another agent's call (acp:<name>): its own title names it, beside the agent's name.
  const hosted = item.tool.startsWith('acp:') ? item.tool.slice(4) : null;
  // What the call changed was undone with its request ("Undo changes from here"): it no longer reads as applied.
  const undone = useApp((s) => Boolean(item.correlationId && s.undone[item.correlationId])) && item.effect !== 'read' && item.status === 'done';
  const denied = item.errorCode === 'PERMISSION_DENIED';
  const label = waiting ? 'waiting for approval' : item.status === 'running' ? 'running' : undone ? 'undone' : item.status === 'done' ? 'done' : item.status === 'failed' ? `failed · exit ${item.exitCode}` : denied ? 'denied' : 'failed';
  // A refusal is said once: a hook's under the card (its block names the hook and why), any other on the error line.
  const saidByHook = denied && item.deniedBy === 'hook' && Boolean(item.hooks?.some((h) => h.decision === 'deny'));
  return (
    <div
      className={`tool-card tool-${item.status}${waiting ? ' tool-waiting' : ''}${undone ? ' tool-undone' : ''}`}
      data-testid="tool-call"
      data-tool={item.tool}
      data-status={item.status}
      data-exit-code={item.exitCode}
      data-undone={undone ? 'true' : undefined}
    >
      <div className="tool-card-head">
        <span className={`tool-dot ${item.status}`} aria-hidden="true" />
        {mcp && (
          <span className="tool-server" data-testid="tool-call-server" data-server={mcp.server} title={`A tool of the MCP server ${mcp.server}`}>
            MCP {mcp.server}
          </span>
        )}
        {hosted && (
          <span className="tool-agent" data-testid="tool-call-agent" data-agent={hosted} title={`A tool call of the agent ${hosted}, run in Loupe's sandbox`}>
            {hosted}
          </span>
        )}
        <span className="tool-name" title={item.title}>
          {mcp ? mcp.tool : hosted ? item.title : item.tool}
        </span>
        {description && (
          <span className="tool-description" data-testid="tool-call-description" title={description}>
            {description}
          </span>
        )}
        {/* Described, the command gets a line of its own below; otherwise it heads the card. */}
        {description ? (
          <span className="tool-summary" />
        ) : (
          <code className="tool-summary" title={summary}>
            {summary}
          </code>
        )}
        {typeof item.data?.sandboxed === 'boolean' && (
          <span className={`tool-sandbox${item.data.sandboxed ? '' : ' tool-outside'}`} data-testid="tool-call-sandbox" data-sandboxed={String(item.data.sandboxed)}>
            {item.data.sandboxed ? 'sandboxed' : 'outside the sandbox'}
          </span>
        )}
        <span className="tool-state">
          {label}
          {item.durationMs !== undefined ? ` · ${item.durationMs < 1000 ? `${Math.round(item.durationMs)} ms` : `${(item.durationMs / 1000).toFixed(1)} s`}` : ''}
        </span>
      </div>
      {description && summary && (
        <code className="tool-command" data-testid="tool-call-command" title={summary}>
          {summary}
        </code>
      )}
      <div className="tool-card-actions">
        <button type="button" className="link-btn" onClick={() => setShowArgs((v) => !v)}>
          {showArgs ? 'Hide arguments' : 'Arguments'}
        </button>
        {item.output && (
          <button type="button" className="link-btn" onClick={() => setOutputChoice(!showOutput)}>
            {showOutput ? 'Hide output' : 'Output'}
          </button>
        )}
        {modId && item.effect === 'write' && (
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
        {introduced && (
          <button
            type="button"
            className={`link-btn tool-problems tl-diag tl-diag-${introduced.tone}`}
            data-testid="tool-call-problems"
            data-errors={(item.data?.diagnostics as DiagnosticsView).errors}
            title={`${introduced.title}\nShow the Problems list`}
            onClick={() => showProblems(true)}
          >
            {introduced.label}
          </button>
        )}
        {procId && (
          <button type="button" className="link-btn" data-testid="tool-process-link" data-process-id={procId} title={`Show ${procId} in the Processes pane`} onClick={() => revealProcess(procId)}>
            {procId} in Processes
          </button>
        )}
      </div>
      {network && (
        <div className="tool-network" data-testid="tool-call-network">
          {network.reached.length > 0 && <div>Reached: {network.reached.join(', ')}</div>}
          {network.refused.map((r) => (
            <div key={r.host} className="tool-network-refused">
              Refused {r.host}: {r.reason}
            </div>
          ))}
        </div>
      )}
      {item.hooks?.map((m, i) => <HookDecision key={i} mark={m} />)}
      {showArgs && <pre className="tool-args">{pretty(item.args, item.argsText)}</pre>}
      {/* A sandbox block is told once, in the person's words below; the model's wording stays with the model. */}
      {item.error && item.errorCode !== 'SANDBOX_BLOCKED' && !saidByHook && (
        <div className={`tool-error-text${denied ? ' tool-denied' : ''}`} data-testid="tool-call-error" data-code={item.errorCode}>
          {item.error}
          {item.errorCode && !denied && <span className="tool-error-code">{item.errorCode}</span>}
        </div>
      )}
      {item.errorCode === 'SANDBOX_BLOCKED' && (
        <div className="tool-blocked" data-testid="tool-call-blocked">
          Blocked by the sandbox{item.data?.blocked !== undefined ? `: ${describeBlocked(item.data.blocked)}` : ''}.{' '}
          {hosted
            ? `The agent ${hosted} runs inside the sandbox: it writes only in the workspace and its own folder, and reaches only the hosts of agents.${hosted}.network.hosts in your settings.`
            : 'The agent may retry it outside the sandbox, which asks you first on a card marked “runs OUTSIDE the sandbox”; or allow it with a rule in .loupe/config.json (a network rule, or "sandbox": false).'}
        </div>
      )}
      {diff && <CompactDiffView diff={diff} onOpen={modId ? () => void openModification(modId) : null} />}
      {showOutput && item.output && (
        <pre
          className="tool-output"
          data-testid="tool-call-output"
          ref={outputRef}
          onScroll={(e) => (atTail.current = e.currentTarget.scrollHeight - e.currentTarget.scrollTop - e.currentTarget.clientHeight < 20)}
        >
          {item.output}
        </pre>
      )}
    </div>
  );
});

/** The server and tool of an MCP server's tool (mcp__<server>__<tool>); the result's data names them exactly once it is done. */
function mcpServerOf(name: string, data: Record<string, unknown> | undefined): { server: string; tool: string } | null {
  const m = /^mcp__(.+?)__(.+)$/.exec(name);
  if (!m) return null;
  return { server: typeof data?.server === 'string' ? data.server : m[1]!, tool: typeof data?.tool === 'string' ? data.tool : m[2]! };
}

/** A call's `description` argument, when the model gave one in words. */
function descriptionOf(args: unknown): string | null {
  const d = args && typeof args === 'object' ? (args as { description?: unknown }).description : undefined;
  return typeof d === 'string' && d.trim() ? d.trim() : null;
}
