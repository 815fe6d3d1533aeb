// A model streams one event per token, ~1,000 a second for a fast local model. Sent to the page
// one frame each, eight sessions streaming at once were 8,000 WebSocket messages a second for
// the page to parse, mostly for sessions it does not show, and the sidebar's main thread had
// long tasks of 130-200 ms (bench/sessions-sidebar.bench.mjs). Consecutive text (or reasoning)
// deltas of one session are joined here and sent once per BATCH_MS; any other event of that
// session sends what is waiting first, so the order a client sees never changes.
import type { ChatEvent } from '../../shared/contract';

/** Longest a token waits before it is sent: about one frame. */
export const BATCH_MS = 16;

type Delta = Extract<ChatEvent, { type: 'text_delta' | 'reasoning_delta' }>;

const isDelta = (e: ChatEvent): e is Delta => e.type === 'text_delta' || e.type === 'reasoning_delta';

export class DeltaBatcher {
  private readonly pending = new Map<string, Delta>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly send: (sessionId: string, event: ChatEvent) => void,
    private readonly ms = BATCH_MS,
  ) {}

  push(sessionId: string, event: ChatEvent): void {
    // 0: nobody draws these (a terminal prints each as it comes), so nothing waits.
    if (this.ms <= 0) return this.send(sessionId, event);
    const waiting = this.pending.get(sessionId);
    if (isDelta(event)) {
      // One agent's pieces join; a subagent's stream beside its parent's never mixes in.
      if (waiting?.type === event.type && waiting.agent_id === event.agent_id) {
        this.pending.set(sessionId, { ...waiting, text: waiting.text + event.text });
        return;
      }
      if (waiting) this.flushSession(sessionId);
      this.pending.set(sessionId, event);
      this.timer ??= setTimeout(() => this.flush(), this.ms);
      return;
    }
    if (waiting) this.flushSession(sessionId);
    this.send(sessionId, event);
  }

  /** Sends everything waiting (the timer, and before the host goes away). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const id of [...this.pending.keys()]) this.flushSession(id);
  }

  private flushSession(sessionId: string): void {
    const e = this.pending.get(sessionId);
    if (!e) return;
    this.pending.delete(sessionId);
    this.send(sessionId, e);
  }
}
