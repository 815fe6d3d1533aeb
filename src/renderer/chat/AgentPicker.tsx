import { useEffect, useRef, useState } from 'react';
import { useApp } from '../store';

/**
 * Who does the open session's work: Loupe's own agent or another one hosted over ACP (OpenCode,
 * Gemini CLI, Claude Code, Codex). A session belongs to one agent, so picking another starts a new
 * session with it (an empty session of the same agent is kept).
 */
export function AgentPicker() {
  const agents = useApp((s) => s.agents);
  const current = useApp((s) => s.chatSessions.find((x) => x.id === s.chatSessionId));
  const create = useApp((s) => s.newChatSession);
  const openSettings = useApp((s) => s.openSettings);
  const loadAgents = useApp((s) => s.loadAgents);
  const [open, setOpen] = useState(false);
  // The menu is placed on the page, not in the panel, which would cut it off at its edge.
  const [at, setAt] = useState<{ top: number; right: number } | null>(null);
  const box = useRef<HTMLDivElement>(null);
  const offered = agents.filter((a) => a.source !== 'ready');
  const agent = current?.agent ?? 'loupe';
  const label = agent === 'loupe' ? 'Loupe' : (agents.find((a) => a.name === agent)?.label ?? agent);
  useEffect(() => {
    if (!open) return;
    const away = (e: MouseEvent) => box.current && !box.current.contains(e.target as Node) && setOpen(false);
    document.addEventListener('mousedown', away);
    return () => document.removeEventListener('mousedown', away);
  }, [open]);
  const pick = (name: string) => {
    setOpen(false);
    if (current && current.requests === 0 && (current.agent ?? 'loupe') === name) return;
    void create(name === 'loupe' ? undefined : name);
  };
  // Only Loupe, and nothing else set up: the picker stays out of the way.
  if (!offered.length && agent === 'loupe') return null;
  return (
    <div className="agent-picker-box" ref={box} onKeyDown={(e) => e.key === 'Escape' && setOpen(false)}>
      <button
        type="button"
        className="btn btn-sm agent-picker"
        data-testid="agent-picker"
        data-agent={agent}
        aria-haspopup="menu"
        aria-expanded={open}
        title="Which agent does this session's work"
        onClick={(e) => {
          if (!open) {
            void loadAgents();
            const r = e.currentTarget.getBoundingClientRect();
            setAt({ top: r.bottom + 4, right: Math.max(8, window.innerWidth - r.right) });
          }
          setOpen(!open);
        }}
      >
        {label} ▾
      </button>
      {open && (
        <div className="agent-menu" role="menu" aria-label="Agent" style={at ? { top: at.top, right: at.right } : undefined}>
          <AgentOption name="loupe" label="Loupe" detail="Loupe's own agent" current={agent === 'loupe'} onPick={pick} />
          {offered.map((a) => (
            <AgentOption key={a.name} name={a.name} label={a.label} detail={a.status === 'ready' ? `${a.command} · in the sandbox` : (a.detail ?? a.status)} current={agent === a.name} disabled={a.status === 'missing' || a.status === 'disabled'} onPick={pick} />
          ))}
          <button
            type="button"
            className="link-btn agent-menu-setup"
            role="menuitem"
            onClick={() => {
              setOpen(false);
              openSettings();
            }}
          >
            Set up other agents…
          </button>
        </div>
      )}
    </div>
  );
}

function AgentOption({ name, label, detail, current, disabled, onPick }: { name: string; label: string; detail: string; current: boolean; disabled?: boolean; onPick(name: string): void }) {
  return (
    <button type="button" role="menuitemradio" aria-checked={current} className={`agent-option${current ? ' agent-current' : ''}`} data-testid="agent-option" data-agent={name} disabled={disabled} title={detail} onClick={() => onPick(name)}>
      <span className="agent-option-label">{label}</span>
      <span className="muted agent-option-detail">{detail}</span>
    </button>
  );
}
