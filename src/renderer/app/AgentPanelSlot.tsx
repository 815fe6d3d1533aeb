import { ChatPanel } from '../chat/ChatPanel';
import { useApp } from '../store';
import { loadable } from './loadable';
import { LoadedView } from './LoadedView';

// The changes tab (timeline, commit, review) is code for when it is first shown: the first screen does not evaluate it.
const timeline = loadable(() => import('../review/Timeline'));

/**
 * The right-hand column: the change timeline and the agent (chat and approval queue). The tab
 * lives in the store: a new approval pulls the agent to the front, "Open diff" the changes.
 */
export function AgentPanelSlot() {
  const tab = useApp((s) => s.agentPanelTab);
  const setTab = useApp((s) => s.chooseAgentPanelTab);
  const waiting = useApp((s) => s.approvals.length);
  return (
    <aside className="agent-slot" data-slot="agent-panel" aria-label="Agent">
      <div className="panel-header">
        <div className="panel-tabs" role="tablist">
          <button role="tab" aria-selected={tab === 'changes'} className={tab === 'changes' ? 'panel-tab active' : 'panel-tab'} data-testid="review-tab" onClick={() => setTab('changes')}>
            Changes
          </button>
          <button role="tab" aria-selected={tab === 'agent'} className={tab === 'agent' ? 'panel-tab active' : 'panel-tab'} data-testid="agent-tab" onClick={() => setTab('agent')}>
            Agent{waiting > 0 && <span className="tab-badge">{waiting}</span>}
          </button>
        </div>
      </div>
      {tab === 'changes' ? <LoadedView view={timeline} what="changes" /> : <ChatPanel />}
    </aside>
  );
}
