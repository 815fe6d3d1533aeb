// Models wrap JSON in prose or code fences more often than not; take the outermost object.
import { LlmError } from './errors';

export function parseJsonAnswer(text: string): Record<string, unknown> {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start === -1 || end < start) throw new LlmError(`The model did not answer with JSON: ${text.slice(0, 200)}`);
  let value: unknown;
  try {
    value = JSON.parse(text.slice(start, end + 1));
  } catch {
    throw new LlmError(`The model's JSON did not parse: ${text.slice(0, 200)}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new LlmError('The model answered JSON that is not an object.');
  return value as Record<string, unknown>;
}
