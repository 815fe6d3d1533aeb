// Tool calls written as text by models or servers without a tool parser: Hermes/Qwen
// `<tool_call>{"name":…,"arguments":{…}}</tool_call>`, Mistral's `[TOOL_CALLS][{…}]`, Llama's
// `<|python_tag|>{…}`, `<function=name>{…}</function>` and Qwen3-Coder's
// `<function=name><parameter=key>value</parameter></function>`, and a fenced JSON block holding
// such an object (alone or in a list). Recognised only for the names offered; everything else
// stays text.
import type { ChatToolCall } from './types';

export interface TextualCalls {
  calls: ChatToolCall[];
  /** The text without the recognised calls. */
  rest: string;
}

const TAGGED = /<tool_call>\s*([\s\S]*?)\s*(?:<\/tool_call>|$)/g;
const MISTRAL = /\[TOOL_CALLS\]\s*([[{][\s\S]*?)\s*(?=\[TOOL_CALLS\]|$)/g;
const PYTHON_TAG = /<\|python_tag\|>\s*(\{[\s\S]*?\})\s*(?:<\|eom_id\|>|<\|eot_id\|>|$)/g;
const FUNCTION_TAG = /<function=([\w.-]+)>\s*([\s\S]*?)\s*(?:<\/function>|(?=<function=)|(?=<\/tool_call>)|$)/g;
const PARAMETER = /<parameter=([\w.-]+)>\n?([\s\S]*?)\n?(?:<\/parameter>|(?=<parameter=)|$)/g;

/** `<parameter=k>v</parameter>` pairs; a value that is a JSON number, boolean or structure is taken as such. */
function parameters(body: string): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  let any = false;
  for (const m of body.matchAll(PARAMETER)) {
    any = true;
    const raw = m[2];
    const v = /^\s*(?:-?\d+(?:\.\d+)?|true|false|null|[[{][\s\S]*)\s*$/.test(raw) ? parse(raw.trim()) : undefined;
    out[m[1]] = v !== undefined ? v : raw.trim();
  }
  return any ? out : undefined;
}
const FENCED = /```(?:json|tool_call|tool)?[ \t]*\n([\s\S]*?)\n?```/g;

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** One call object ({name, arguments|parameters}, or OpenAI's {function:{…}}) for a known tool. */
function asCall(value: unknown, names: ReadonlySet<string>, n: number): ChatToolCall | null {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  let v = value as Record<string, unknown>;
  if (v.function && typeof v.function === 'object') v = v.function as Record<string, unknown>;
  const name = typeof v.name === 'string' ? v.name.trim() : '';
  if (!names.has(name)) return null;
  const extra = Object.keys(v).filter((k) => !['name', 'arguments', 'parameters', 'type', 'id'].includes(k));
  if (extra.length) return null;
  const args = v.arguments ?? v.parameters ?? {};
  const text = typeof args === 'string' ? args : JSON.stringify(args);
  return { id: `text_call_${n}`, type: 'function', function: { name, arguments: text } };
}

function callsIn(json: string, names: ReadonlySet<string>, start: number): ChatToolCall[] | null {
  const value = parse(json);
  const list = Array.isArray(value) ? value : [value];
  if (!list.length) return null;
  const calls = list.map((v, i) => asCall(v, names, start + i));
  return calls.every((c): c is ChatToolCall => c !== null) ? calls : null;
}

export function recogniseTextualCalls(text: string, toolNames: Iterable<string>): TextualCalls | null {
  const names = new Set(toolNames);
  if (!names.size || !text.trim()) return null;
  const calls: ChatToolCall[] = [];
  let rest = text;
  for (const pattern of [TAGGED, MISTRAL, PYTHON_TAG, FENCED]) {
    rest = rest.replace(pattern, (whole, body: string) => {
      const found = callsIn(body.trim(), names, calls.length);
      if (!found) return whole;
      calls.push(...found);
      return '';
    });
    if (calls.length) break;
  }
  if (!calls.length) {
    rest = rest.replace(FUNCTION_TAG, (whole, name: string, body: string) => {
      const args = body.includes('<parameter=') ? parameters(body) : parse(body.trim() || '{}');
      const found = callsIn(JSON.stringify({ name, arguments: args ?? null }), names, calls.length);
      if (!found) return whole;
      calls.push(...found);
      return '';
    });
    if (calls.length) rest = rest.replace(/<tool_call>\s*(?:<\/tool_call>|$)/g, '');
  }
  if (!calls.length) {
    // A reply that is nothing but the call object.
    const found = text.trim().startsWith('{') || text.trim().startsWith('[') ? callsIn(text.trim(), names, 0) : null;
    if (!found) return null;
    return { calls: found, rest: '' };
  }
  return { calls, rest: rest.replace(/\n{3,}/g, '\n\n').trim() };
}
