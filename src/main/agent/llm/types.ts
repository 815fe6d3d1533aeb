// The slice of the chat API the loop speaks. Plain JSON, so a session file can hold it as is;
// each shape is assignable to the openai package's message params.
import type { TokenUsage } from '../../../shared/contract';

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface ChatToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
}

/** Token counts as the API reports them; the contract's shape, so events carry it as is. */
export type Usage = TokenUsage;

/** One streamed answer, put back together. */
export interface AssistantTurn {
  content: string;
  toolCalls: ChatToolCall[];
  finishReason: string;
  usage?: Usage;
}

export interface StreamHandlers {
  onText?(delta: string): void;
  /** A tool call's name is known (its arguments follow in pieces). */
  onToolCallStart?(call: { index: number; id: string; name: string }): void;
  onToolCallArgs?(call: { index: number; id: string; delta: string }): void;
  onUsage?(usage: Usage): void;
  /** A failed attempt will be retried: anything streamed since the last attempt started is void. */
  onRetry?(info: { attempt: number; delayMs: number; reason: string }): void;
}
