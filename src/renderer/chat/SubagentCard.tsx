// A subagent's card in its parent's conversation: what it is for, its status, its turns, tokens
// and cost as they move, a Stop of its own while it runs, and, opened, its own conversation as
// it happens (its tool calls, its words, its subagents' cards). Folded by chatFold.ts.
import { memo, useState, type ReactNode } from 'react';
import { useApp, type ChatItem, type SubagentItem } from '../store';
import { usd } from './UsageMeter';

const compact = (n: number) => (n < 1000 ? String(n) : n < 1_000_000 ? `${(n / 1000).toFixed(1).replace(/\.0$/, '')}k` : `${(n / 1e6).toFixed(1).replace(/\.0$/, '')}M`);

const STATUS: Record<SubagentItem['status'], string> = { running: 'running', done: 'done', failed: 'failed', stopped: 'stopped' };

export const SubagentCard = memo(function SubagentCard({ item, renderItems }: { item: SubagentItem; renderItems: (items: ChatItem[]) => ReactNode }) {
  const stopAgent = useApp((s) => s.stopAgent);
  const waiting = useApp((s) => item.status === 'running' && s.approvals.some((a) => a.agent_id === item.id));
  const [open, setOpen] = useState(false);
  const [stopping, setStopping] = useState(false);
  const calls = item.items.filter((i) => i.kind === 'tool').length;
  const label = waiting ? 'waiting for approval' : STATUS[item.status];
  return (
    <div className={`subagent-card subagent-${item.status}${waiting ? ' subagent-waiting' : ''}`} data-testid="subagent-card" data-agent-id={item.id} data-status={item.status}>
      <div className="subagent-head">
        <button type="button" className="subagent-toggle" aria-expanded={open} data-testid="subagent-toggle" title={open ? 'Hide what it did' : 'Show what it did'} onClick={() => setOpen((v) => !v)}>
          {open ? '▾' : '▸'}
        </button>
        <span className={`tool-dot ${item.status === 'running' ? 'running' : item.status === 'done' ? 'done' : 'error'}`} aria-hidden="true" />
        <span className="subagent-description" data-testid="subagent-description" title={item.description}>
          {item.description}
        </span>
        <span className="subagent-state" data-testid="subagent-state">
          {label}
        </span>
        {item.status === 'running' && (
          <button
            type="button"
            className="subagent-stop"
            data-testid="subagent-stop"
            disabled={stopping}
            title="Stop this agent only (the request and its other agents go on)"
            onClick={() => {
              setStopping(true);
              void stopAgent(item.id).finally(() => setStopping(false));
            }}
          >
            {stopping ? 'Stopping…' : 'Stop'}
          </button>
        )}
      </div>
      <div className="subagent-meta">
        <span className="subagent-type" title={item.readOnly ? 'Only reads: anything that would change the workspace is refused' : `Tools: ${item.tools.join(', ')}`}>
          {item.agentType}
          {item.readOnly ? ' · read-only' : ''}
          {item.background ? ' · background' : ''}
        </span>
        <span className="subagent-figures" data-testid="subagent-figures" title={`Turns ${item.turns}${item.maxTurns ? ` of ${item.maxTurns}` : ''}; tokens ${item.tokens.toLocaleString('en-US')}${item.tokenBudget ? ` of ${item.tokenBudget.toLocaleString('en-US')}` : ''}`}>
          {item.turns} turn{item.turns === 1 ? '' : 's'} · {compact(item.tokens)} tokens{item.costUsd !== undefined && item.tokens > 0 ? ` · ${usd(item.costUsd)}` : ''}
        </span>
        {!open && item.status === 'running' && calls > 0 && (
          <span className="subagent-latest" data-testid="subagent-latest">
            {latestCall(item.items)}
          </span>
        )}
      </div>
      {item.reason && (
        <div className="subagent-reason" data-testid="subagent-reason">
          {item.reason}
        </div>
      )}
      {item.files && item.files.length > 0 && (
        <div className="subagent-files" data-testid="subagent-files">
          Changed{item.worktree ? ` in worktree ${item.worktree}` : ''}: {item.files.join(', ')}
        </div>
      )}
      {open && (
        <div className="subagent-body" data-testid="subagent-body">
          {item.items.length ? renderItems(item.items) : <div className="subagent-empty">Nothing yet.</div>}
        </div>
      )}
    </div>
  );
});

/** The call it is making now (or made last), for a card that is closed. */
function latestCall(items: ChatItem[]): string {
  const t = items.findLast((i) => i.kind === 'tool');
  return t?.kind === 'tool' ? `${t.status === 'running' ? '→' : '✓'} ${t.tool} ${t.summary}` : '';
}
