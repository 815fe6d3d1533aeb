// The slice of the chat API the loop speaks. Plain JSON, so a session file can hold it as is;
// each shape is assignable to the openai package's message params. Provider extensions that
// must go back to the provider (reasoning, thought signatures) ride along on the assistant
// message; `raw_arguments` is ours only and never leaves the machine (see wire.ts).
import type { TokenUsage } from '../../../shared/contract';

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
  /** Gemini's `extra_content.google.thought_signature`, replayed as received. */
  extra_content?: Record<string, unknown>;
  /** The model's arguments when they were not a JSON object: `function.arguments` is then "{}". */
  raw_arguments?: string;
}

/** Reasoning a provider returned and wants back (DeepSeek, vLLM, OpenRouter). */
export interface ReasoningFields {
  reasoning_content?: string;
  reasoning?: string;
  reasoning_details?: Record<string, unknown>[];
}

/** A piece of a user message that is more than text: OpenAI's content parts (an image as a data URL). */
export type UserContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | UserContentPart[] }
  | ({ role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[] } & ReasoningFields)
  | { role: 'tool'; tool_call_id: string; content: string };

export interface ChatToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
}

/** The text of a user message's content, its images left out. */
export function contentText(content: string | UserContentPart[]): string {
  return typeof content === 'string' ? content : content.map((p) => (p.type === 'text' ? p.text : '')).join('\n\n');
}

/** Token counts as the API reports them; the contract's shape, so events carry it as is. */
export type Usage = TokenUsage;

/** One streamed answer, put back together. */
export interface AssistantTurn {
  content: string;
  toolCalls: ChatToolCall[];
  finishReason: string;
  usage?: Usage;
  /** What the person may read of the model's thinking (never the answer). */
  reasoning?: string;
  /** The provider's own reasoning fields, to keep on the assistant message. */
  reasoningFields?: ReasoningFields;
}

export interface StreamHandlers {
  onText?(delta: string): void;
  onReasoning?(delta: string): void;
  /** Something the person should know about how the answer was read (a workaround applied). */
  onNotice?(text: string): void;
  /** A tool call's name is known (its arguments follow in pieces). */
  onToolCallStart?(call: { index: number; id: string; name: string }): void;
  onToolCallArgs?(call: { index: number; id: string; delta: string }): void;
  onUsage?(usage: Usage): void;
  /** A failed attempt will be retried: anything streamed since the last attempt started is void. */
  onRetry?(info: { attempt: number; delayMs: number; reason: string }): void;
}
