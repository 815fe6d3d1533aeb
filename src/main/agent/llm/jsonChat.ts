// One-shot JSON questions to the agent's model (the edit corrector's calls). Non-streaming,
// temperature 0, no retries: a failed correction falls back to the original error anyway.
import type OpenAI from 'openai';
import { AbortedError } from '../../errors';
import type { LlmConfig } from './config';
import { LlmError } from './errors';
import { parseJsonAnswer } from './jsonAnswer';
import { splitThink } from './thinkSplitter';

export interface JsonQuestion {
  system: string;
  user: string;
  signal?: AbortSignal;
}

export type JsonChat = (q: JsonQuestion) => Promise<Record<string, unknown>>;

export function createJsonChat(config: LlmConfig, opts: { timeoutMs?: number } = {}): JsonChat {
  // Made on the first question: loading openai costs ~100 ms nobody should pay at start-up.
  let api: Promise<OpenAI> | null = null;
  const client = () => (api ??= import('openai').then(({ default: OpenAI }) => new OpenAI({ apiKey: config.apiKey, baseURL: config.baseURL, maxRetries: 0, timeout: opts.timeoutMs ?? 60_000 })));
  return async ({ system, user, signal }) => {
    let content: string | null | undefined;
    try {
      const res = await (await client()).chat.completions.create(
        {
          model: config.model,
          temperature: 0,
          messages: [
            { role: 'system', content: system },
            { role: 'user', content: user },
          ],
        },
        { signal },
      );
      content = res.choices[0]?.message?.content;
    } catch (err) {
      if (signal?.aborted) throw new AbortedError('The correction request');
      throw new LlmError(`The model request failed: ${(err as Error).message}`);
    }
    if (!content) throw new LlmError('The model returned an empty answer.');
    // Reasoning models write their thinking first, braces and all: the answer is what follows.
    return parseJsonAnswer(splitThink(content).content || content);
  };
}
