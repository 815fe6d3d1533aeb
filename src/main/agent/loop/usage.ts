// Tokens, context and cost as the person sees them: each model call's usage as the server
// reported it (`stream_options.include_usage`), or Loupe's estimate when it reported none
// (marked `estimated`); the share of the context window the conversation fills; the cost where
// the model's price is known; and the session's totals, which outlive one request.
import type { SessionUsage, TokenUsage, UsageView } from '../../../shared/contract';
import type { ModelFacts } from '../llm/modelFacts';

export const emptySessionUsage = (): SessionUsage => ({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, calls: 0, estimated_calls: 0, unpriced_calls: 0 });

const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v) : 0);

/** A session's totals as read back from a session file (which may come with a clone): numbers only. */
export function sessionUsageFrom(v: unknown): SessionUsage {
  if (!v || typeof v !== 'object') return emptySessionUsage();
  const o = v as Record<string, unknown>;
  const cost = typeof o.cost_usd === 'number' && Number.isFinite(o.cost_usd) && o.cost_usd >= 0 ? o.cost_usd : undefined;
  const calls = count(o.calls);
  // A file written before unpriced calls were counted has a cost only when every call was priced.
  const unpriced = 'unpriced_calls' in o ? Math.min(calls, count(o.unpriced_calls)) : cost === undefined ? calls : 0;
  return {
    prompt_tokens: count(o.prompt_tokens),
    completion_tokens: count(o.completion_tokens),
    total_tokens: count(o.total_tokens),
    calls,
    estimated_calls: count(o.estimated_calls),
    ...(cost !== undefined && unpriced < calls ? { cost_usd: cost } : {}),
    unpriced_calls: unpriced,
  };
}

/** USD for these tokens at this price (per million tokens). */
export function costUsd(prompt: number, completion: number, price: NonNullable<ModelFacts['price']>): number {
  return (prompt * price.inputUsdPerMtok + completion * price.outputUsdPerMtok) / 1e6;
}

/** The server's numbers when it sent them, else the estimate; `total_tokens` made whole when a server leaves it 0. */
function settle(reported: TokenUsage | undefined, estimate: { prompt: number; completion: number }): TokenUsage & { estimated: boolean } {
  if (reported) {
    const total = reported.total_tokens > 0 ? reported.total_tokens : reported.prompt_tokens + reported.completion_tokens;
    return { prompt_tokens: reported.prompt_tokens, completion_tokens: reported.completion_tokens, total_tokens: total, estimated: false };
  }
  return { prompt_tokens: estimate.prompt, completion_tokens: estimate.completion, total_tokens: estimate.prompt + estimate.completion, estimated: true };
}

export class UsageTally {
  private readonly totals: SessionUsage;
  /** The meter after the latest answered call. */
  last: UsageView | undefined;

  constructor(session?: SessionUsage, last?: UsageView) {
    this.totals = session ? { ...session } : emptySessionUsage();
    this.last = last;
  }

  get session(): SessionUsage {
    return { ...this.totals };
  }

  /**
   * Counts a call in the session; its cost when priced. The session's cost is that of its priced
   * calls, and the calls made while the model had no price are counted apart, so a price set
   * mid-session shows from then on, with the calls before it named as uncounted.
   */
  private add(u: TokenUsage & { estimated: boolean }, facts: ModelFacts): number | undefined {
    const t = this.totals;
    t.prompt_tokens += u.prompt_tokens;
    t.completion_tokens += u.completion_tokens;
    t.total_tokens += u.total_tokens;
    t.calls += 1;
    if (u.estimated) t.estimated_calls += 1;
    const cost = facts.price ? costUsd(u.prompt_tokens, u.completion_tokens, facts.price) : undefined;
    if (cost === undefined) t.unpriced_calls = (t.unpriced_calls ?? 0) + 1;
    else t.cost_usd = (t.cost_usd ?? 0) + cost;
    return cost;
  }

  /** A call of the conversation: the meter moves to it. */
  call(reported: TokenUsage | undefined, estimate: { prompt: number; completion: number }, facts: ModelFacts): UsageView {
    const u = settle(reported, estimate);
    const cost = this.add(u, facts);
    this.last = {
      ...u,
      conversation_tokens: u.total_tokens,
      context_window: facts.contextWindow,
      context_window_source: facts.contextWindowSource,
      ...(cost !== undefined ? { cost_usd: cost } : {}),
      session: this.session,
    };
    return this.last;
  }

  /** What a subagent spent since it last said (its calls, its own children's included): the session pays, the meter's conversation stays this one's. */
  child(spent: SessionUsage): void {
    const t = this.totals;
    t.prompt_tokens += spent.prompt_tokens;
    t.completion_tokens += spent.completion_tokens;
    t.total_tokens += spent.total_tokens;
    t.calls += spent.calls;
    t.estimated_calls += spent.estimated_calls;
    if (spent.cost_usd === undefined || t.cost_usd === undefined) delete t.cost_usd;
    else t.cost_usd += spent.cost_usd;
    if (this.last) this.last = { ...this.last, session: this.session };
  }

  /** A call beside the conversation (a compaction summary): it costs, but the meter stays where it is. */
  aside(reported: TokenUsage | undefined, estimate: { prompt: number; completion: number }, facts: ModelFacts): void {
    this.add(settle(reported, estimate), facts);
    if (this.last) this.last = { ...this.last, session: this.session };
  }
}

/** One line for a terminal: "1,234 tokens (estimated) · context 1,290 / 32,768 (4%) · $0.0012 · session 5,678 tokens, $0.0040". */
export function describeUsage(u: UsageView): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const pct = u.context_window ? Math.round((u.conversation_tokens / u.context_window) * 100) : 0;
  const usd = (x: number) => `$${x < 0.01 ? x.toFixed(4) : x.toFixed(2)}`;
  const parts = [
    `context ${n(u.conversation_tokens)} / ${n(u.context_window)} tokens (${pct}%)${u.estimated ? ', estimated' : ''}`,
    `session ${n(u.session.prompt_tokens)} in + ${n(u.session.completion_tokens)} out${u.session.estimated_calls ? ` (${u.session.estimated_calls} of ${u.session.calls} calls estimated)` : ''}`,
  ];
  if (u.session.cost_usd !== undefined) parts.push(`${usd(u.session.cost_usd)}${u.session.unpriced_calls ? ` (${u.session.unpriced_calls} unpriced call${u.session.unpriced_calls === 1 ? '' : 's'} not counted)` : ''}`);
  return parts.join(' · ');
}
