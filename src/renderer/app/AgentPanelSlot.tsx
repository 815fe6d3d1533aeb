import { useState } from 'react';
import { Timeline } from '../review/Timeline';
import { SparkIcon } from './icons';

/**
 * The right-hand column: the change timeline now, chat and the approval queue when they
 * arrive. The column exists so the layout does not shift as they do.
 */
export function AgentPanelSlot({ width }: { width: number }) {
  const [tab, setTab] = useState<'changes' | 'agent'>('changes');
  return (
    <aside className="agent-slot" data-slot="agent-panel" aria-label="Agent" style={{ width }}>
      <div className="panel-header">
        <div className="panel-tabs" role="tablist">
          <button role="tab" aria-selected={tab === 'changes'} className={tab === 'changes' ? 'panel-tab active' : 'panel-tab'} data-testid="review-tab" onClick={() => setTab('changes')}>
            Changes
          </button>
          <button role="tab" aria-selected={tab === 'agent'} className={tab === 'agent' ? 'panel-tab active' : 'panel-tab'} onClick={() => setTab('agent')}>
            Agent
          </button>
        </div>
      </div>
      {tab === 'changes' ? (
        <Timeline />
      ) : (
        <div className="agent-slot-empty">
          <SparkIcon size={22} />
          <p>The agent will work here.</p>
          <p className="muted">Chat and approvals arrive in this column.</p>
        </div>
      )}
    </aside>
  );
}
