import type { SessionUsage, UsageView } from '../../shared/contract';
import { useApp } from '../store';
import './context.css';

const exact = (n: number) => n.toLocaleString('en-US');
/** 1,290 → "1.3k", 200,000 → "200k": the bar's words; the exact numbers are in its title. */
const compact = (n: number) => (n < 1000 ? String(n) : n < 100_000 ? `${(n / 1000).toFixed(1).replace(/\.0$/, '')}k` : n < 1_000_000 ? `${Math.round(n / 1000)}k` : `${(n / 1e6).toFixed(1).replace(/\.0$/, '')}M`);
export const usd = (x: number) => `$${x === 0 ? '0' : x < 0.01 ? x.toFixed(4) : x.toFixed(2)}`;

const SOURCE: Record<UsageView['context_window_source'], string> = { server: 'as the server reports it', settings: 'from the settings', default: "Loupe's default; set it in the settings" };

const calls = (n: number) => `${n} call${n === 1 ? '' : 's'}`;

/** The session's cost in words: what was priced, and the calls made before a price was known. */
function sessionCost(s: SessionUsage, priced: boolean): string {
  const unpriced = s.unpriced_calls ?? 0;
  if (s.cost_usd !== undefined) return `, ${usd(s.cost_usd)}${unpriced ? ` (${calls(unpriced)} before a price was known ${unpriced === 1 ? 'is' : 'are'} not counted)` : ''}`;
  return priced ? ' (no price was known for these calls; the next ones are counted)' : ' (no price known for this model: set one in Settings › Models)';
}

function title(u: UsageView | null, window: number, source: UsageView['context_window_source'], priced: boolean): string {
  const lines = [`Context window: ${exact(window)} tokens (${SOURCE[source]}).`];
  if (u) {
    lines.push(
      `Conversation so far: ${exact(u.conversation_tokens)} tokens${u.estimated ? ' (estimated: the server did not report usage)' : ' (as the server reported)'}.`,
      `Last call: ${exact(u.prompt_tokens)} in + ${exact(u.completion_tokens)} out${u.cost_usd !== undefined ? `, ${usd(u.cost_usd)}` : ''}.`,
      `Session: ${exact(u.session.prompt_tokens)} in + ${exact(u.session.completion_tokens)} out in ${calls(u.session.calls)}${u.session.estimated_calls ? ` (${u.session.estimated_calls} estimated)` : ''}${sessionCost(u.session, priced)}.`,
    );
  }
  return lines.join('\n');
}

/**
 * How full the context window is, by the server's own count of the conversation (or Loupe's
 * estimate, marked "~", where the server reports none), and what the session has cost.
 */
export function UsageMeter() {
  const usage = useApp((s) => s.chatUsage);
  const facts = useApp((s) => s.llmSettings?.model_facts);
  const running = useApp((s) => s.chatRunning !== null);
  const window = usage?.context_window ?? facts?.context_window;
  if (!window) return <span className="chat-usage">{running ? 'Working…' : ''}</span>;
  const tokens = usage?.conversation_tokens ?? 0;
  const share = Math.min(1, tokens / window);
  const level = share >= 0.9 ? 'full' : share >= 0.75 ? 'high' : 'ok';
  const cost = usage?.session.cost_usd;
  return (
    <div
      className="usage-meter"
      data-testid="usage-meter"
      data-tokens={tokens}
      data-context={window}
      data-estimated={String(usage?.estimated ?? false)}
      title={title(usage, window, usage?.context_window_source ?? facts?.context_window_source ?? 'default', facts?.input_usd_per_mtok !== undefined)}
    >
      <span className="usage-bar" aria-hidden="true">
        <span className={`usage-fill ${level}`} style={{ width: `${(share * 100).toFixed(1)}%` }} />
      </span>
      <span className="chat-usage" data-testid="chat-usage">
        {usage?.estimated ? '~' : ''}
        {/* No "tokens": the column is narrow, and the cost must stay in view (the title says the rest). */}
        {compact(tokens)} / {compact(window)}
        {cost !== undefined && usage && usage.session.calls > 0 ? ` · ${usd(cost)}` : ''}
        {running ? ' · working…' : ''}
      </span>
    </div>
  );
}
