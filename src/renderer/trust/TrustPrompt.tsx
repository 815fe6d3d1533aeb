import { useApp } from '../store';
import { trustPromptShown } from '../store/trustSlice';
import '../settings/settings.css';
import './trust.css';

/**
 * Asked once per config content on open: what the folder's .loupe/config.json would allow.
 * Until the person trusts it, its allow rules and test commands are ignored.
 */
export default function TrustPrompt() {
  const trust = useApp((s) => s.trust);
  const busy = useApp((s) => s.trustBusy);
  const error = useApp((s) => s.trustError);
  const accept = useApp((s) => s.acceptTrust);
  const decline = useApp((s) => s.declineTrust);
  if (!trustPromptShown(trust)) return null;
  // The files whose entries trusting would turn on, the config first.
  const files = [...new Set(['.loupe/config.json', ...trust.mcp_servers.map((m) => m.file), ...(trust.hooks ?? []).map((h) => h.file)])].filter((f) => f !== '.loupe/config.json' || trust.allow.length || trust.tests.length || trust.servers?.length || trust.mcp_servers.some((m) => m.file === f) || (trust.hooks ?? []).some((h) => h.file === f) || !!trust.agents?.length);
  return (
    <div className="dialog-backdrop">
      <div
        className="settings-dialog trust-dialog"
        role="alertdialog"
        aria-modal="true"
        aria-labelledby="trust-title"
        data-testid="trust-prompt"
        onKeyDown={(e) => e.key === 'Escape' && void decline()}
      >
        <div className="trust-title" id="trust-title">
          Trust this folder’s settings?
        </div>
        <p className="trust-text">
          {files.map((f, i) => (
            <span key={f}>
              {i > 0 && (i === files.length - 1 ? ' and ' : ', ')}
              <code>{i === 0 ? `${trust.root}/${f}` : f}</code>
            </span>
          ))}{' '}
          came{' '}
          with the folder and would let the agent do the following without asking you. Until you trust it, these entries are ignored (its deny and ask rules apply
          either way).
        </p>
        {trust.allow.length > 0 && (
          <>
            <div className="trust-heading">Allow rules</div>
            <ul className="trust-list" data-testid="trust-allow">
              {trust.allow.map((r, i) => (
                <li key={i}>
                  <span className="trust-kind">{r.kind}</span> <code>{r.pattern}</code>
                </li>
              ))}
            </ul>
          </>
        )}
        {trust.tests.length > 0 && (
          <>
            <div className="trust-heading">Test commands</div>
            <ul className="trust-list" data-testid="trust-tests">
              {trust.tests.map((t) => (
                <li key={t.language}>
                  <span className="trust-kind">{t.language}</span> <code>{t.command}</code>
                </li>
              ))}
            </ul>
          </>
        )}
        {!!trust.servers?.length && (
          <>
            <div className="trust-heading">Language servers</div>
            <ul className="trust-list" data-testid="trust-servers">
              {trust.servers.map((t) => (
                <li key={t.language}>
                  <span className="trust-kind">{t.language}</span> <code>{t.command.join(' ')}</code>
                </li>
              ))}
            </ul>
          </>
        )}
        {trust.mcp_servers.length > 0 && (
          <>
            <div className="trust-heading">MCP servers (each asks once more before it first starts)</div>
            <ul className="trust-list" data-testid="trust-mcp">
              {trust.mcp_servers.map((m) => (
                <li key={m.name}>
                  <span className="trust-kind">{m.name}</span> <code>{m.target}</code> <span className="muted">{m.file}</span>
                </li>
              ))}
            </ul>
          </>
        )}
        {!!trust.hooks?.length && (
          <>
            <div className="trust-heading">Hooks (programs of this repository: each asks once more before it first runs, and runs in the sandbox)</div>
            <ul className="trust-list" data-testid="trust-hooks">
              {trust.hooks.map((h, i) => (
                <li key={i} data-testid="trust-hook" data-event={h.event}>
                  <span className="trust-kind">
                    {h.event}
                    {h.matcher ? ` ${h.matcher}` : ''}
                  </span>{' '}
                  <code>{h.command}</code> <span className="muted">{h.file}</span>
                </li>
              ))}
            </ul>
          </>
        )}
        {!!trust.agents?.length && (
          <>
            <div className="trust-heading">Other agents (programs of this repository: each asks once more before it first runs, and runs in the sandbox)</div>
            <ul className="trust-list" data-testid="trust-agents">
              {trust.agents.map((a) => (
                <li key={a.name}>
                  <span className="trust-kind">{a.name}</span> <code>{a.target}</code>
                </li>
              ))}
            </ul>
          </>
        )}
        <p className="trust-note">Any later change to the file asks again. sha256 {(trust.digest ?? '').slice(0, 12)}…</p>
        {error && <div className="settings-fail">{error}</div>}
        <div className="trust-actions">
          <button type="button" className="btn" data-testid="trust-decline" disabled={busy} autoFocus onClick={() => void decline()}>
            Don’t trust
          </button>
          <button type="button" className="btn btn-primary" data-testid="trust-accept" disabled={busy} onClick={() => void accept()}>
            Trust and allow
          </button>
        </div>
      </div>
    </div>
  );
}
