import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChatEvent } from '../../shared/contract';
import { DeltaBatcher } from './deltaBatcher';

afterEach(() => {
  vi.useRealTimers();
});

const at = { correlation_id: 'req-1', t: 0 };
const text = (t: string): ChatEvent => ({ type: 'text_delta', text: t, ...at });
const thought = (t: string): ChatEvent => ({ type: 'reasoning_delta', text: t, ...at });
const call: ChatEvent = { type: 'tool_call_streaming', call_id: 'c1', tool: 'read_file', title: 'Read', effect: 'read', ...at };

function collect() {
  const sent: [string, ChatEvent][] = [];
  return { sent, batcher: new DeltaBatcher((s, e) => sent.push([s, e]), 16) };
}

describe('DeltaBatcher', () => {
  it('joins the tokens of one session and sends them once the frame is over', () => {
    vi.useFakeTimers();
    const { sent, batcher } = collect();
    for (const t of ['Hel', 'lo', ', ', 'world']) batcher.push('s1', text(t));
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(16);
    expect(sent).toEqual([['s1', text('Hello, world')]]);
  });

  it('sends what waits before any other event of the session, so the order never changes', () => {
    vi.useFakeTimers();
    const { sent, batcher } = collect();
    batcher.push('s1', thought('think'));
    batcher.push('s1', thought('ing'));
    batcher.push('s1', text('An'));
    batcher.push('s1', text('swer'));
    batcher.push('s1', call);
    batcher.push('s1', text('after'));
    expect(sent).toEqual([
      ['s1', thought('thinking')],
      ['s1', text('Answer')],
      ['s1', call],
    ]);
    vi.advanceTimersByTime(16);
    expect(sent.at(-1)).toEqual(['s1', text('after')]);
    expect(sent).toHaveLength(4);
  });

  it('keeps sessions apart: one session’s event does not send another’s tokens early', () => {
    vi.useFakeTimers();
    const { sent, batcher } = collect();
    batcher.push('s1', text('one '));
    batcher.push('s2', text('two '));
    batcher.push('s2', call);
    expect(sent).toEqual([
      ['s2', text('two ')],
      ['s2', call],
    ]);
    batcher.push('s1', text('more'));
    vi.advanceTimersByTime(16);
    expect(sent.at(-1)).toEqual(['s1', text('one more')]);
  });

  it('flush sends everything waiting at once', () => {
    vi.useFakeTimers();
    const { sent, batcher } = collect();
    batcher.push('s1', text('a'));
    batcher.push('s2', thought('b'));
    batcher.flush();
    expect(sent).toEqual([
      ['s1', text('a')],
      ['s2', thought('b')],
    ]);
    vi.advanceTimersByTime(100);
    expect(sent).toHaveLength(2);
  });
});
