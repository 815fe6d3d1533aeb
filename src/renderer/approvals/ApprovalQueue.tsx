import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { ApprovalRequestView, DiagnosticsView } from '../../shared/contract';
import { fromUnified } from '../chat/compactDiff';
import { CompactDiffView } from '../chat/CompactDiffView';
import { BranchIcon } from '../app/icons';
import { preloadDiffView } from '../review/diffLoad';
import { useApp, type ChatItem } from '../store';
import { riskyApproval } from '../store/approvalsSlice';
import './approvals.css';

/** What the language server says the edit would introduce, read before it is written. */
function EditProblems({ d }: { d: DiagnosticsView }) {
  if (!d.available) return <div className="approval-problems muted" data-testid="approval-diagnostics" data-count="">{d.server} could not say what this would introduce ({d.reason}).</div>;
  if (!d.introduced_count) {
    return (
      <div className="approval-problems ok" data-testid="approval-diagnostics" data-count="0">
        {d.server}: no new problems
      </div>
    );
  }
  return (
    <div className="approval-problems" data-testid="approval-diagnostics" data-count={d.introduced_count}>
      <div>
        {d.server}: this would introduce {d.introduced_count} problem{d.introduced_count === 1 ? '' : 's'}
      </div>
      <ul>
        {d.introduced.map((p, i) => (
          <li key={i} className={`sev-${p.severity}`}>
            {p.file ? `${p.file}:` : 'line '}
            {p.line}: {p.message.split('\n')[0]}
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * The proposed edit, compact: its −/+ lines. Monaco's diff of it is in the centre pane (wide
 * enough for code), where Accept and Reject answer the same question; a click brings it back.
 */
function ProposedEdit({ req }: { req: ApprovalRequestView }) {
  const openPendingEdit = useApp((s) => s.openPendingEdit);
  const diff = useMemo(() => {
    const lines = fromUnified(req.diff ?? '');
    return { lines, added: lines.filter((l) => l.sign === '+').length, removed: lines.filter((l) => l.sign === '-').length };
  }, [req.diff]);
  return <CompactDiffView diff={diff} testId="approval-diff" onOpen={req.edit ? () => openPendingEdit(req.id) : null} />;
}

/** A subagent asked: the card names it (its description and type) and opens its parent's conversation, where its card is. */
function AgentName({ req }: { req: ApprovalRequestView }) {
  const open = useApp((s) => s.openChatSession);
  const current = useApp((s) => s.chatSessionId === req.parent_session_id);
  return (
    <button
      type="button"
      className={current ? 'approval-session approval-agent current' : 'approval-session approval-agent'}
      data-testid="approval-agent"
      data-agent-id={req.agent_id}
      title={current ? 'Asked by a subagent of the session open in the chat' : 'Open the session whose subagent asked'}
      onClick={() => void (req.parent_session_id && open(req.parent_session_id))}
    >
      subagent · {req.session_title ?? req.agent_id}
    </button>
  );
}

/** Which session asked: every session's questions wait in this one queue. A click opens that session. */
function SessionName({ req }: { req: ApprovalRequestView }) {
  const open = useApp((s) => s.openChatSession);
  const select = useApp((s) => s.selectWorktreeSession);
  const current = useApp((s) => s.chatSessionId === req.session_id);
  const title = req.session_title ?? 'a session';
  return (
    <button
      type="button"
      className={current ? 'approval-session current' : 'approval-session'}
      data-testid="approval-session"
      title={current ? 'Asked by the session open in the chat' : 'Open the session that asked'}
      onClick={() => void (req.worktree ? select(req.worktree) : open(req.session_id!))}
    >
      {req.worktree ? (
        <>
          <span className="approval-session-worktree">
            <BranchIcon size={11} /> {req.worktree}
          </span>{' '}
          · {title}
        </>
      ) : (
        <>main folder · {title}</>
      )}
    </button>
  );
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
  hook: "Run a repository's hook",
  skill: 'Pre-approve tools',
  agent: "Run a repository's agent",
};

function ApprovalCard({ req, autoFocus }: { req: ApprovalRequestView; autoFocus: boolean }) {
  const answer = useApp((s) => s.answerApproval);
  const busy = useApp((s) => Boolean(s.approvalBusy[req.id]));
  const [editing, setEditing] = useState(false);
  const [patterns, setPatterns] = useState(() => req.always.map((r) => r.pattern).join('\n'));
  const [message, setMessage] = useState('');
  const [scope, setScope] = useState<'project' | 'user'>('project');
  // What the model said the call is for (bash's `description`), from the chat card that asked.
  const description = useApp((s) => {
    const call = req.call_id ? findCall(s.chatItems, req.call_id) : undefined;
    const d = call?.kind === 'tool' ? (call.args as { description?: unknown } | undefined)?.description : undefined;
    return typeof d === 'string' && d.trim() ? d.trim() : null;
  });
  const ref = useRef<HTMLDivElement>(null);
  const denyRef = useRef<HTMLButtonElement>(null);
  const risky = riskyApproval(req);
  const nudge = useApp((s) => (s.approvalNudge?.id === req.id ? s.approvalNudge.n : 0));
  const nudgeApproval = useApp((s) => s.nudgeApproval);
  useEffect(() => {
    // Take the keyboard only when nobody is typing somewhere else. A risky card's default is Deny.
    const active = document.activeElement;
    if (autoFocus && !(active instanceof HTMLInputElement || active instanceof HTMLTextAreaElement)) (risky ? denyRef.current : ref.current)?.focus();
  }, [autoFocus, risky]);
  useEffect(() => {
    if (nudge) ref.current?.scrollIntoView({ block: 'nearest' });
  }, [nudge]);

  const once = () => void answer(req.id, { answer: 'once' });
  const deny = () => void answer(req.id, { answer: 'deny', ...(message.trim() ? { message: message.trim() } : {}) });
  const always = () => {
    const list = patterns.split('\n').map((p) => p.trim()).filter(Boolean);
    void answer(req.id, { answer: 'always', patterns: list, scope });
  };
  const onKey = (e: KeyboardEvent<HTMLDivElement>) => {
    if (busy) return;
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      // No key allows a risky call: the card says so instead.
      if (risky) nudgeApproval(req.id);
      else if (editing) always();
      else once();
    } else if (e.key === 'Escape') {
      e.preventDefault();
      if (editing) setEditing(false);
      else deny();
    } else if (e.key === 'Enter' && risky && e.target === e.currentTarget && !e.shiftKey && !e.altKey) {
      // The card itself has the keyboard: Enter presses its default button, Deny.
      e.preventDefault();
      deny();
    }
  };
  // The reason already names the rule, or says that none matched: only what to do next is added.
  const why = req.kind === 'edit' && !req.rule ? 'Switch it off with the pill by Send, or allow this file always.' : '';
  return (
    <div
      className="approval-card"
      ref={ref}
      tabIndex={-1}
      data-testid="approval-card"
      data-kind={req.kind}
      data-session-id={req.session_id}
      data-sandboxed={req.sandboxed === undefined ? undefined : String(req.sandboxed)}
      data-risk={risky ? 'high' : undefined}
      data-background={req.background ? 'true' : undefined}
      data-status={busy ? 'answering' : 'pending'}
      onKeyDown={onKey}
    >
      {req.agent_id ? <AgentName req={req} /> : req.session_id && <SessionName req={req} />}
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
      {description && (
        <div className="approval-description" data-testid="approval-description">
          {description}
        </div>
      )}
      <pre className="approval-subject" data-testid="approval-subject">
        {req.summary}
      </pre>
      {risky && (
        // Keyed by the nudge count: a Ctrl+Enter that did not allow replays the flash.
        <div key={nudge} className={nudge ? 'approval-risk nudged' : 'approval-risk'} data-testid="approval-risk" role="note">
          <strong>Risky: this cannot be undone.</strong>
          <ul>
            {req.risk!.map((r) => (
              <li key={r}>{r}</li>
            ))}
          </ul>
        </div>
      )}
      {req.background && (
        <div className="approval-background" data-testid="approval-background">
          Keeps running in the background after this call, until it is stopped (Processes pane, or the agent) or idle too long.
        </div>
      )}
      <div className="approval-why" data-testid="approval-why">
        {req.reason}.{why && <span className="muted"> {why}</span>}
      </div>
      {req.details && (
        <pre className="approval-diff" data-testid="approval-details">
          {req.details}
        </pre>
      )}
      {req.trust_would_allow && <TrustWouldAllow rule={req.trust_would_allow} />}
      {req.kind === 'edit' && req.diff ? <ProposedEdit req={req} /> : req.diff && <pre className="approval-diff">{req.diff}</pre>}
      {req.edit?.diagnostics && <EditProblems d={req.edit.diagnostics} />}
      {editing && (
        <div className="approval-always">
          <div className="approval-scope" role="radiogroup" aria-label="Where to save the rule">
            <label>
              <input type="radio" name={`scope-${req.id}`} data-testid="approval-always-scope-project" checked={scope === 'project'} onChange={() => setScope('project')} />
              This project (shared: .loupe/config.json, committed with it)
            </label>
            <label>
              <input type="radio" name={`scope-${req.id}`} data-testid="approval-always-scope-user" checked={scope === 'user'} onChange={() => setScope('user')} />
              Only me (my settings, for this folder)
            </label>
          </div>
          <label>
            Rule ({req.kind}, allow{req.always[0]?.hosts ? `, hosts ${req.always[0].hosts.join(', ')}` : ''}), one pattern per line:
            <textarea className="text-input" data-testid="approval-always-patterns" rows={Math.max(1, patterns.split('\n').length)} value={patterns} onChange={(e) => setPatterns(e.target.value)} autoFocus />
          </label>
        </div>
      )}
      <input className="text-input approval-message" placeholder="Message for the agent if you deny (optional)" value={message} onChange={(e) => setMessage(e.target.value)} aria-label="Message for the agent" />
      <div className="approval-actions">
        <button type="button" className={risky ? 'btn' : 'btn btn-primary'} data-testid="approval-allow-once" disabled={busy} onClick={once} title={risky ? 'Allow once (a click only: it cannot be undone)' : 'Allow once (Ctrl+Enter)'}>
          Allow once
        </button>
        {req.kind === 'hook' || req.kind === 'mcp-server' || req.kind === 'agent' ? (
          // Running a repository's program (a hook, a server, an agent) is no rule: "always" keeps the approval of this exact configuration for this folder.
          <button
            type="button"
            className="btn"
            data-testid="approval-allow-always"
            disabled={busy}
            onClick={() => void answer(req.id, { answer: 'always' })}
            title={req.kind === 'hook' || req.kind === 'agent' ? 'Run it now and from now on in this folder, until its command line changes' : 'Start it now and from now on in this folder, until its configuration changes'}
          >
            Always in this folder
          </button>
        ) : req.kind === 'skill' ? (
          // Its "always" is the answer itself: kept for this exact list in this folder.
          <button type="button" className="btn" data-testid="approval-allow-always" disabled={busy} onClick={() => void answer(req.id, { answer: 'always' })} title="Allow whenever this skill or command is in use in this folder, until its list changes">
            Always for this list
          </button>
        ) : editing ? (
          <button type="button" className="btn" data-testid="approval-allow-always" disabled={busy || !patterns.trim()} onClick={always} title={risky ? 'Save the rule and allow' : 'Save the rule and allow (Ctrl+Enter)'}>
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
        <button
          type="button"
          ref={denyRef}
          className={risky ? 'btn btn-danger btn-default' : 'btn btn-danger'}
          data-testid="approval-deny"
          data-default={risky ? 'true' : undefined}
          disabled={busy}
          onClick={deny}
          title={risky ? 'Deny (Enter or Esc): the default for a risky command' : 'Deny (Esc)'}
        >
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

/** An untrusted folder's own config would allow this: trusting it (here, in one click) lets it through. */
function TrustWouldAllow({ rule }: { rule: string }) {
  const accept = useApp((s) => s.acceptTrust);
  const busy = useApp((s) => s.trustBusy);
  const canTrust = useApp((s) => Boolean(s.trust?.digest && !s.trust.trusted));
  return (
    <div className="approval-trust" data-testid="approval-trust-hint">
      <span>Trusting this folder turns on its rule: {rule}.</span>
      {canTrust && (
        <button type="button" className="btn btn-sm" data-testid="approval-trust" disabled={busy} onClick={() => void accept()}>
          Trust this folder
        </button>
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
    // Every edit will come as a question: have the diff editor ready before the first one does.
    if (!asksForEdits) return;
    const handle = requestIdleCallback(preloadDiffView, { timeout: 3000 });
    return () => cancelIdleCallback(handle);
  }, [asksForEdits]);
  if (!approvals.length && !error) return null;
  return (
    <div className="approval-queue" data-testid="approval-queue" aria-label="Waiting for your approval">
      {approvals.length > 0 && (
        <div className="approval-queue-title">
          Waiting for you · {approvals.length}
          <span className="approval-keys" data-testid="approval-keys">
            {riskyApproval(approvals[0]) ? 'Esc deny · risky: allow with a click' : 'Ctrl+Enter allow once · Esc deny'}
          </span>
        </div>
      )}
      {error && <div className="chat-error">{error}</div>}
      {approvals.map((r, i) => (
        <ApprovalCard key={r.id} req={r} autoFocus={i === 0} />
      ))}
    </div>
  );
}

/** The tool call with this id, in the conversation or inside a subagent's card. */
function findCall(items: ChatItem[], id: string): ChatItem | undefined {
  for (const i of items) {
    if (i.kind === 'tool' && i.id === id) return i;
    if (i.kind === 'subagent') {
      const inner = findCall(i.items, id);
      if (inner) return inner;
    }
  }
  return undefined;
}
