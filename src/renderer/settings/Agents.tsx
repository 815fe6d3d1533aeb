import { useState } from 'react';
import type { AgentView } from '../../shared/contract';
import { useApp } from '../store';

const STATUS_WORDS: Record<AgentView['status'], string> = { ready: 'ready', missing: 'program not found', pending: 'waiting for you', disabled: 'off' };

/**
 * Other agents a session can run inside Loupe (ACP): the person's, the trusted repository's, and the
 * ready entries for OpenCode, Gemini CLI, Claude Code and Codex, enabled here once installed. Each
 * runs in the sandbox; its keys come from the environment its entry names (`${env:VAR}`).
 */
export function AgentsSection() {
  const agents = useApp((s) => s.agents);
  const error = useApp((s) => s.agentsError);
  if (!agents.length) return null;
  return (
    <div className="settings-mcp" data-testid="settings-agents">
      <div className="settings-title settings-section">Other agents</div>
      <div className="muted settings-note">
        Run in Loupe&apos;s sandbox: every change they make is a modification you can review and undo, and their questions wait here. Configured under <code>agents</code> in settings.json.
      </div>
      {error && <div className="settings-fail">{error}</div>}
      <ul className="mcp-list">
        {agents.map((a) => (
          <AgentRow key={a.name} agent={a} />
        ))}
      </ul>
    </div>
  );
}

function AgentRow({ agent: a }: { agent: AgentView }) {
  const enable = useApp((s) => s.enableAgent);
  const [folder, setFolder] = useState('');
  const on = a.status !== 'disabled';
  const mine = a.source !== 'project';
  return (
    <li className="mcp-server" data-testid="agent-row" data-agent={a.name} data-status={a.status} data-source={a.source}>
      <div className="mcp-head">
        <span className={`mcp-dot ${a.status === 'ready' ? 'mcp-ready' : a.status === 'missing' ? 'mcp-failed' : a.status === 'pending' ? 'mcp-pending' : 'mcp-off'}`} aria-hidden="true" />
        <strong className="mcp-name">{a.label}</strong>
        <span className="mcp-status">{STATUS_WORDS[a.status]}</span>
        <span className="spacer" />
        {mine && (
          <button type="button" className="btn" data-testid="agent-enable" onClick={() => void enable(a.name, !on, !on && folder.trim() ? folder.trim() : undefined)}>
            {on ? 'Disable' : 'Enable'}
          </button>
        )}
      </div>
      <div className="muted mcp-target">
        <code>{a.command}</code> · {a.source === 'user' ? 'your settings' : a.source === 'project' ? '.loupe/config.json' : 'ready entry'}
      </div>
      {a.detail && (
        <div className={a.status === 'missing' ? 'settings-fail mcp-detail' : 'muted mcp-detail'} data-testid="agent-detail">
          {a.detail}
        </div>
      )}
      {mine && (a.status === 'missing' || (a.status === 'disabled' && !a.program)) && (
        <input className="text-input" data-testid="agent-folder" placeholder="Folder that holds the program (e.g. ~/.local/bin), then Enable" value={folder} onChange={(e) => setFolder(e.target.value)} aria-label={`Folder of ${a.label}'s program`} />
      )}
    </li>
  );
}
