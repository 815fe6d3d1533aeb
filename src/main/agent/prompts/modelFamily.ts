// Small adjustments for model families that need them (docs/architecture.md, "What the agent is
// told"), chosen from the model's name and what its endpoint showed at run time. The base prompt
// works for every model; an adjustment only adds a few lines.
import type { ProfileView } from '../llm/profile';

export type Adjustment = 'reasoning' | 'small';

export interface ModelInfo {
  name: string;
  /** What the endpoint taught while it was used (reasoning sent, tool calls written as text). */
  profile?: ProfileView;
}

// Families that think before answering: OpenAI o-series and gpt-5, DeepSeek R1 and reasoner,
// QwQ, gpt-oss, Magistral, and any "thinking"/"reasoning" variant.
const REASONING_NAME = /(?:^|[/:_\-\s])(?:o[1-9](?:-(?:mini|pro|preview))?|gpt-5[\w.-]*|gpt-oss[\w.:-]*|deepseek-r1[\w.:-]*|r1(?:-\w+)?|qwq[\w.:-]*|magistral[\w.:-]*|[\w.-]*thinking[\w.-]*|[\w.-]*reason(?:ing|er)[\w.-]*)(?=$|[/:_\-\s])/i;

/** The parameter count in a model's name ("qwen2.5-coder:7b", "llama-3.1-8B-instruct"), in billions; null when it says none. */
export function parameterBillions(name: string): number | null {
  // Not the "7b" of a mixture ("8x7b"): the whole is larger than any expert.
  const m = /(?:^|[^\w.x])(\d+(?:\.\d+)?)\s*b(?=$|[^a-z0-9])/i.exec(name);
  return m ? Number(m[1]) : null;
}

export function adjustmentsFor(model: ModelInfo | undefined): Adjustment[] {
  if (!model) return [];
  const out: Adjustment[] = [];
  const p = model.profile;
  if (REASONING_NAME.test(model.name) || p?.reasoningReplayed || p?.thinkInText || p?.thinkOpensInPrompt) out.push('reasoning');
  const size = parameterBillions(model.name);
  // Small models, and any model whose tool calls had to be read out of its text, get the exact shape.
  if ((size !== null && size <= 14) || p?.textualToolCalls) out.push('small');
  return out;
}

/** The lines an adjustment adds. `example`: a real tool call of this registry, for the exact shape. */
export function adjustmentText(a: Adjustment, example: { name: string; args: string } | null): string {
  if (a === 'reasoning') return '- You think before you answer: do not restate your plan or your reasoning in the reply. Act, then report the outcome in a few lines.';
  return [
    '- Call a tool through the tool-call interface only, never by writing the call as text or in a code block. Its arguments are one JSON object with the fields its schema names' +
      (example ? `, for example a call to \`${example.name}\` with arguments ${example.args}.` : '.'),
    '- One step at a time: look, then change one thing, then check it. Keep each change small.',
  ].join('\n');
}
