// Token counts as a server reports them, for the scripted server's `usage: 'counted'`: a real
// BPE tokenizer (o200k, OpenAI's current one, through js-tiktoken), so Loupe's own estimate is
// checked against counts it did not make. Messages are framed as OpenAI's chat format frames
// them (a few tokens per message), tools counted as their JSON, an image as OpenAI's price of a
// 1024×1024 picture at high detail (765 tokens).
import type { Tiktoken } from 'js-tiktoken';
import type { RecordedRequest, ScriptedReply } from './scriptedLlm';

let encoder: Promise<Tiktoken> | null = null;
// Loading the ranks takes seconds on a busy machine: once per process, and only when asked.
const enc = (): Promise<Tiktoken> => (encoder ??= import('js-tiktoken').then((m) => m.getEncoding('o200k_base')));

export const IMAGE_TOKENS = 765;

export async function countText(text: string): Promise<number> {
  return text ? (await enc()).encode(text).length : 0;
}

export async function countRequest(body: RecordedRequest['body']): Promise<number> {
  let n = 3;
  for (const m of body.messages ?? []) {
    n += 4 + (await countText(m.role));
    if (typeof m.content === 'string') n += await countText(m.content);
    else if (Array.isArray(m.content)) {
      for (const p of m.content as { type: string; text?: string }[]) n += p.type === 'text' ? await countText(p.text ?? '') : IMAGE_TOKENS;
    }
    if (m.tool_calls?.length) n += await countText(JSON.stringify(m.tool_calls.map((c) => c.function)));
    for (const k of ['reasoning_content', 'reasoning'] as const) {
      const v = (m as Record<string, unknown>)[k];
      if (typeof v === 'string') n += await countText(v);
    }
  }
  if (Array.isArray(body.tools) && body.tools.length) n += await countText(JSON.stringify(body.tools));
  return n;
}

export async function countAnswer(reply: ScriptedReply): Promise<number> {
  let n = 1 + (await countText(reply.content ?? '')) + (await countText(reply.reasoning ?? ''));
  for (const c of reply.toolCalls ?? []) n += 3 + (await countText(c.name)) + (await countText(c.arguments));
  return n;
}
