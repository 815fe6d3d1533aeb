// Every hook of the open folder by the file it comes from (`hook-row`, with data-source,
// data-event, data-status): whose it is, its command line, whether it runs (approved), waits for
// the person (trust the folder, approve it) or is off (disabled), and its last result.
import type { HookView } from '../../shared/contract';
import { useApp } from '../store';

const STATUS: Record<HookView['status'], string> = { approved: 'approved', waiting: 'waiting for you', disabled: 'disabled' };

export function HooksSection() {
  const hooks = useApp((s) => s.hooks);
  const error = useApp((s) => s.hooksError);
  if (!hooks.length) return null;
  const sources = [...new Set(hooks.map((h) => h.source))];
  return (
    <div className="settings-hooks" data-testid="settings-hooks">
      <div className="settings-title settings-section">Hooks</div>
      {error && <div className="settings-fail">{error}</div>}
      {sources.map((source) => (
        <div key={source} className="hooks-source">
          <div className="muted hooks-file">
            <code>{source}</code> · {hooks.find((h) => h.source === source)!.owner === 'user' ? 'yours, for every folder' : "the repository's: each asks before it first runs, and runs in the sandbox"}
          </div>
          <ul className="mcp-list">
            {hooks
              .filter((h) => h.source === source)
              .map((h) => (
                <HookRow key={h.id} hook={h} />
              ))}
          </ul>
        </div>
      ))}
    </div>
  );
}

function HookRow({ hook: h }: { hook: HookView }) {
  const approve = useApp((s) => s.approveHook);
  const setDisabled = useApp((s) => s.setHookDisabled);
  const off = h.status === 'disabled';
  return (
    <li className="mcp-server hook-row" data-testid="hook-row" data-source={h.source} data-event={h.event} data-status={h.status}>
      <div className="mcp-head">
        <span className={`mcp-dot ${h.status === 'approved' ? 'mcp-ready' : off ? 'mcp-off' : 'mcp-pending'}`} aria-hidden="true" />
        <strong className="mcp-name">
          {h.event}
          {h.matcher ? ` · ${h.matcher}` : ''}
        </strong>
        <span className="mcp-status" data-testid="hook-row-status">
          {STATUS[h.status]}
        </span>
        <span className="spacer" />
        {h.owner === 'project' && h.status === 'waiting' && !h.detail?.includes('trust this folder') && (
          <button type="button" className="btn" data-testid="hook-row-approve" onClick={() => void approve(h.id)}>
            Approve
          </button>
        )}
        <button type="button" className="btn" data-testid="hook-row-disable" onClick={() => void setDisabled(h.id, !off)}>
          {off ? 'Enable' : 'Disable'}
        </button>
      </div>
      <div className="muted mcp-target" title={h.command}>
        <code>{h.command}</code> · {h.kind === 'http' ? 'http' : h.sandboxed ? 'sandboxed' : 'runs as you'} · {h.timeout_s} s timeout
      </div>
      {h.detail && (
        <div className="muted mcp-detail" data-testid="hook-row-detail">
          {h.detail}
        </div>
      )}
      {h.last && (
        <div className={h.last.decision === 'error' || h.last.decision === 'warn' ? 'settings-fail mcp-detail' : 'muted mcp-detail'} data-testid="hook-row-last">
          Last: {h.last.event} {h.last.decision} in {h.last.ms} ms{h.last.reason ? ` — ${h.last.reason}` : ''}
        </div>
      )}
    </li>
  );
}
