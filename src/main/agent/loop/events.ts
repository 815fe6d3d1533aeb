// What the loop tells its watchers (the chat pane, `loupe run`). Every event carries the
// request's correlation id and `t`, a wall-clock time in ms with sub-ms precision.
import type { ChatEvent, ChatEventBody } from '../../../shared/contract';

// The contract owns the event shapes: the chat pane receives exactly what the loop emits.
export type AgentEventBody = ChatEventBody;
export type AgentEvent = ChatEvent;
export type RunStatus = Extract<ChatEventBody, { type: 'request_finished' }>['status'];

type Listener = (e: AgentEvent) => void;

export class AgentEvents {
  private readonly listeners = new Set<Listener>();

  /** Returns the unsubscribe function. */
  on(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(e: AgentEvent): void {
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        // A broken watcher must not stop the agent.
      }
    }
  }
}

export const now = (): number => performance.timeOrigin + performance.now();
