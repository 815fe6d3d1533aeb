import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { loadable } from '../app/loadable';
import type { ApprovalRequestView } from '../../shared/contract';
import { useApp } from '../store';
import './approvals.css';

// Monaco comes with the diff editor's chunk, only once an edit asks.
const editDiff = loadable(() => import('./EditDiff'));

/** The proposed edit in Monaco's diff editor; the plain unified diff until (or if) it cannot load. */
function ProposedEditDiff({ req }: { req: ApprovalRequestView }) {
  const { Component: EditDiff } = editDiff.use();
  if (EditDiff && req.edit) return <EditDiff edit={req.edit} />;
  return req.diff ? <pre className="approval-diff">{req.diff}</pre> : null;
}

const KIND_LABEL: Record<ApprovalRequestView['kind'], string> = {
  bash: 'Run a command',
  edit: 'Edit a file',
  read: 'Read',
  webfetch: 'Fetch a URL',
  external_directory: 'Outside the workspace',
  test: 'Run tests',
  network: 'Network',
  mcp: 'MCP tool',
  'mcp-server': 'Start an MCP server',
  elicitation: 'A server asks',
};

function ApprovalCard({ req, autoFocus }: { req: ApprovalRequestView; autoFocus: boolean }) {
  const answer = useApp((s) => s.answerApproval);
  const busy = useApp((s) => Boolean(s.approvalBusy[req.id]));
  const [editing, setEditing] = useState(false);
  const [patterns, setPatterns] = useState(() => req.always.map((r) => r.pattern).join('\n'));
  const [message, setMessage] = useState('');
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // Take the keyboard only when nobody is typing somewhere else.
    const active = document.activeElement;
    if (autoFocus && !(active instanceof HTMLInputElement || active instanceof HTMLTextAreaElement)) ref.current?.focus();
  }, [autoFocus]);

  const once = () => void answer(req.id, { answer: 'once' });
  const deny = () => void answer(req.id, { answer: 'deny', ...(message.trim() ? { message: message.trim() } : {}) });
  const always = () => {
    const list = patterns.split('\n').map((p) => p.trim()).filter(Boolean);
    void answer(req.id, { answer: 'always', patterns: list });
  };
  const onKey = (e: KeyboardEvent<HTMLDivElement>) => {
    if (busy) return;
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      if (editing) always();
      else once();
    } else if (e.key === 'Escape') {
      e.preventDefault();
      if (editing) setEditing(false);
      else deny();
    }
  };
  // An edit with no rule behind it asks because of the edits mode, which the reason already says.
  const why = req.rule ? `Rule: ${req.rule}` : req.kind === 'edit' ? 'Switch it off with the pill by Send, or allow this file always.' : 'No rule matches; the default for this kind is to ask.';
  return (
    <div className="approval-card" ref={ref} tabIndex={-1} data-testid="approval-card" data-kind={req.kind} data-sandboxed={req.sandboxed === undefined ? undefined : String(req.sandboxed)} data-status={busy ? 'answering' : 'pending'} onKeyDown={onKey}>
      <div className="approval-head">
        <span className={`approval-kind kind-${req.kind}`}>{KIND_LABEL[req.kind] ?? req.kind}</span>
        <span className="approval-tool">{req.tool}</span>
        {req.sandboxed === false && (
          <span className="approval-outside" data-testid="approval-outside">
            runs OUTSIDE the sandbox
          </span>
        )}
        {req.sandboxed === true && <span className="muted">runs inside the sandbox</span>}
      </div>
      <pre className="approval-subject" data-testid="approval-subject">
        {req.summary}
      </pre>
      <div className="approval-why" data-testid="approval-why">
        {req.reason}. <span className="muted">{why}</span>
      </div>
      {req.details && (
        <pre className="approval-diff" data-testid="approval-details">
          {req.details}
        </pre>
      )}
      {req.edit ? <ProposedEditDiff req={req} /> : req.diff && <pre className="approval-diff">{req.diff}</pre>}
      {editing && (
        <div className="approval-always">
          <label>
            Rule to save in .loupe/config.json ({req.kind}, allow{req.always[0]?.hosts ? `, hosts ${req.always[0].hosts.join(', ')}` : ''}), one pattern per line:
            <textarea className="text-input" data-testid="approval-always-patterns" rows={Math.max(1, patterns.split('\n').length)} value={patterns} onChange={(e) => setPatterns(e.target.value)} autoFocus />
          </label>
        </div>
      )}
      <input className="text-input approval-message" placeholder="Message for the agent if you deny (optional)" value={message} onChange={(e) => setMessage(e.target.value)} aria-label="Message for the agent" />
      <div className="approval-actions">
        <button type="button" className="btn btn-primary" data-testid="approval-allow-once" disabled={busy} onClick={once} title="Allow once (Ctrl+Enter)">
          Allow once
        </button>
        {editing ? (
          <button type="button" className="btn" data-testid="approval-allow-always" disabled={busy || !patterns.trim()} onClick={always} title="Save the rule and allow (Ctrl+Enter)">
            Save rule & allow
          </button>
        ) : (
          <button
            type="button"
            className="btn"
            data-testid="approval-allow-always"
            disabled={busy || req.always.length === 0}
            onClick={() => setEditing(true)}
            title={req.always.length ? `Allow always: adds ${req.always.map((r) => `${r.kind} "${r.pattern}"${r.hosts ? ` for ${r.hosts.join(', ')}` : ''}`).join(', ')}` : 'No rule can allow this (it is only known at run time).'}
          >
            Allow always…
          </button>
        )}
        <button type="button" className="btn btn-danger" data-testid="approval-deny" disabled={busy} onClick={deny} title="Deny (Esc)">
          Deny
        </button>
      </div>
      {!editing && req.always.length > 0 && (
        <div className="approval-rule-preview muted">
          Always would save: {req.always.map((r) => `${r.kind} "${r.pattern}"${r.sandbox === false ? " (outside the sandbox)" : ""}`).join(', ')}
        </div>
      )}
    </div>
  );
}

/** The questions waiting for the person, oldest first; each pauses one tool call. */
export function ApprovalQueue() {
  const approvals = useApp((s) => s.approvals);
  const error = useApp((s) => s.approvalError);
  const asksForEdits = useApp((s) => s.editsMode === 'ask');
  useEffect(() => {
    // Every edit will come as a card: have its diff editor ready before the first one does.
    if (!asksForEdits) return;
    const handle = requestIdleCallback(() => void editDiff.load().catch(() => undefined), { timeout: 3000 });
    return () => cancelIdleCallback(handle);
  }, [asksForEdits]);
  if (!approvals.length && !error) return null;
  return (
    <div className="approval-queue" data-testid="approval-queue" aria-label="Waiting for your approval">
      {approvals.length > 0 && (
        <div className="approval-queue-title">
          Waiting for you · {approvals.length}
          <span className="approval-keys">Ctrl+Enter allow once · Esc deny</span>
        </div>
      )}
      {error && <div className="chat-error">{error}</div>}
      {approvals.map((r, i) => (
        <ApprovalCard key={r.id} req={r} autoFocus={i === 0} />
      ))}
    </div>
  );
}
