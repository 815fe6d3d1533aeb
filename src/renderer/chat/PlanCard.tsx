import { useApp, type ChatItem } from '../store';
import { Markdown } from './LazyMarkdown';

/** A plan-mode answer, kept as the session's Markdown file: "Execute plan" runs it in act mode. */
export function PlanCard({ item }: { item: Extract<ChatItem, { kind: 'plan' }> }) {
  const running = useApp((s) => s.chatRunning !== null);
  const execute = useApp((s) => s.executePlan);
  const corr = item.correlationId;
  return (
    <section className="chat-plan" data-testid="plan-card" aria-label="Plan">
      <header className="chat-plan-head">
        <strong>Plan</strong>
        <span className="muted" title="Where the plan is kept">
          {item.path}
        </span>
      </header>
      <Markdown text={item.text} streaming={false} />
      {corr && (
        <button type="button" className="btn btn-primary" data-testid="plan-execute" disabled={running} title="Switch to act mode and send this plan; its changes carry the plan's request" onClick={() => void execute(corr)}>
          Execute plan
        </button>
      )}
    </section>
  );
}
