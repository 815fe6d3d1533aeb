// What the loop tells its watchers (the chat pane, `loupe run`). Every event carries the
// request's correlation id and `t`, a wall-clock time in ms with sub-ms precision.
import type { ErrorCode } from '../../../shared/errors';
import type { Usage } from '../llm/types';

export type RunStatus = 'done' | 'error' | 'aborted' | 'turn_limit';

export type AgentEventBody =
  | { type: 'request_started'; session_id: string; prompt: string }
  | { type: 'turn_started'; turn: number }
  | { type: 'text_delta'; text: string }
  /** The model began a tool call; its arguments stream as tool_call_args. */
  | { type: 'tool_call_streaming'; call_id: string; tool: string }
  | { type: 'tool_call_args'; call_id: string; delta: string }
  | { type: 'turn_completed'; turn: number; finish_reason: string; tool_calls: number }
  | { type: 'tool_call_started'; call_id: string; tool: string; args: unknown }
  /** Live output of a running tool (bash). */
  | { type: 'tool_output'; call_id: string; text: string }
  | { type: 'tool_call_finished'; call_id: string; tool: string; ok: boolean; output: string; data?: Record<string, unknown>; error?: { code: ErrorCode; message: string }; duration_ms: number }
  | { type: 'usage'; usage: Usage }
  | { type: 'retry'; attempt: number; delay_ms: number; reason: string }
  | { type: 'compacted'; mode: 'summary' | 'dropped'; removed_messages: number; tokens_before: number; tokens_after: number }
  | { type: 'error'; code: ErrorCode; message: string }
  | { type: 'request_finished'; status: RunStatus; text: string; turns: number };

export type AgentEvent = AgentEventBody & { correlation_id: string; t: number };

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
