import type { McpServerView } from '../../shared/contract';
import { useApp } from '../store';
import { statusWords } from './mcpStatus';

/** The folder's MCP servers (the person's and the repository's) with their status, Restart and Disable. */
export function McpServersSection() {
  const servers = useApp((s) => s.mcpServers);
  const error = useApp((s) => s.mcpError);
  if (!servers.length) return null;
  return (
    <div className="settings-mcp" data-testid="settings-mcp">
      <div className="settings-title settings-section">MCP servers</div>
      {error && <div className="settings-fail">{error}</div>}
      <ul className="mcp-list">
        {servers.map((v) => (
          <McpServerRow key={v.name} server={v} />
        ))}
      </ul>
    </div>
  );
}

function McpServerRow({ server: v }: { server: McpServerView }) {
  const restart = useApp((s) => s.restartMcpServer);
  const setDisabled = useApp((s) => s.setMcpServerDisabled);
  return (
    <li className="mcp-server" data-testid="mcp-server" data-server={v.name} data-status={v.status} {...(v.disabled ? { 'data-disabled': 'true' } : {})}>
      <div className="mcp-head">
        <span className={`mcp-dot ${v.disabled ? 'mcp-off' : `mcp-${v.status}`}`} aria-hidden="true" />
        <strong className="mcp-name">{v.name}</strong>
        <span className="mcp-status" data-testid="mcp-server-status">
          {statusWords(v)}
        </span>
        <span className="spacer" />
        <button type="button" className="btn" data-testid="mcp-server-restart" disabled={!v.restartable} onClick={() => void restart(v.name)}>
          Restart
        </button>
        <button type="button" className="btn" data-testid="mcp-server-disable" onClick={() => void setDisabled(v.name, !v.disabled)}>
          {v.disabled ? 'Enable' : 'Disable'}
        </button>
      </div>
      <div className="muted mcp-target" title={v.file}>
        <code>{v.target}</code> · {v.source === 'user' ? 'your settings' : v.file}
        {v.sandboxed === true && ' · sandboxed'}
        {v.sandboxed === false && ' · outside the sandbox'}
      </div>
      {v.detail && (
        <div className={v.status === 'failed' ? 'settings-fail mcp-detail' : 'muted mcp-detail'} data-testid="mcp-server-detail">
          {v.detail}
        </div>
      )}
      {v.status === 'failed' && v.stderr.length > 0 && (
        <pre className="mcp-stderr" data-testid="mcp-server-stderr">
          {v.stderr.slice(-8).join('\n')}
        </pre>
      )}
      {v.sign_in_url && (
        <a href={v.sign_in_url} target="_blank" rel="noreferrer">
          Sign in
        </a>
      )}
    </li>
  );
}
