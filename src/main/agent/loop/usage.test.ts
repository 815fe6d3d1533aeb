// A session's cost when a price is set part-way: the priced calls are summed, the calls before
// counted apart, and a session file from before that count reads back without inventing a cost.
import { describe, expect, it } from 'vitest';
import type { ModelFacts } from '../llm/modelFacts';
import { describeUsage, sessionUsageFrom, UsageTally } from './usage';

const facts = (price?: ModelFacts['price']): ModelFacts => ({ contextWindow: 64_000, contextWindowSource: 'settings', images: false, imagesSource: 'unknown', ...(price ? { price } : {}) });
const reported = { prompt_tokens: 9000, completion_tokens: 1000, total_tokens: 10_000 };
const none = { prompt: 0, completion: 0 };

describe('UsageTally', () => {
  it('sums the priced calls and counts the unpriced ones apart', () => {
    const tally = new UsageTally();
    const first = tally.call(reported, none, facts());
    expect(first.cost_usd).toBeUndefined();
    expect(first.session).toMatchObject({ calls: 1, unpriced_calls: 1 });
    expect(first.session.cost_usd).toBeUndefined();

    const second = tally.call(reported, none, facts({ inputUsdPerMtok: 3, outputUsdPerMtok: 15 }));
    expect(second.cost_usd).toBeCloseTo(0.042, 12);
    expect(second.session).toMatchObject({ calls: 2, unpriced_calls: 1 });
    expect(second.session.cost_usd).toBeCloseTo(0.042, 12);
    expect(describeUsage(second)).toContain('$0.04 (1 unpriced call not counted)');

    tally.aside(reported, none, facts({ inputUsdPerMtok: 3, outputUsdPerMtok: 15 }));
    expect(tally.session.cost_usd).toBeCloseTo(0.084, 12);
    expect(tally.last?.session.calls).toBe(3);
  });

  it('reads a session file as written, and one from before unpriced calls were counted', () => {
    expect(sessionUsageFrom({ calls: 3, cost_usd: 0.5, unpriced_calls: 1 })).toMatchObject({ calls: 3, cost_usd: 0.5, unpriced_calls: 1 });
    // Older files: a cost meant every call was priced; none meant some call was not.
    expect(sessionUsageFrom({ calls: 3, cost_usd: 0.5 })).toMatchObject({ calls: 3, cost_usd: 0.5, unpriced_calls: 0 });
    const unpriced = sessionUsageFrom({ calls: 3 });
    expect(unpriced).toMatchObject({ calls: 3, unpriced_calls: 3 });
    expect(unpriced.cost_usd).toBeUndefined();
    // Nonsense from a cloned file is clamped, never trusted.
    expect(sessionUsageFrom({ calls: 2, unpriced_calls: 9, cost_usd: 1 })).toMatchObject({ calls: 2, unpriced_calls: 2 });
    expect(sessionUsageFrom({ calls: 2, unpriced_calls: 9, cost_usd: 1 }).cost_usd).toBeUndefined();
  });
});
