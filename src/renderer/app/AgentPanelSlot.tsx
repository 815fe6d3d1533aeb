import { SparkIcon } from './icons';

/**
 * The right-hand column where chat, the approval queue, the timeline and the diff view
 * will live. It exists now so the layout does not shift when they arrive.
 */
export function AgentPanelSlot() {
  return (
    <aside className="agent-slot" data-slot="agent-panel" aria-label="Agent">
      <div className="panel-header">
        <div className="panel-tabs" role="tablist">
          <span role="tab" aria-selected="true" className="panel-tab active">
            Agent
          </span>
        </div>
      </div>
      <div className="agent-slot-empty">
        <SparkIcon size={22} />
        <p>The agent will work here.</p>
        <p className="muted">Chat, approvals, the change timeline and diffs arrive in this column.</p>
      </div>
    </aside>
  );
}
