// Cursor's commands (`.cursor/commands/*.md`): plain Markdown inserted as the prompt. Cursor
// defines no placeholders, so nothing in the text is replaced; what is typed after the name
// follows the text after a blank line, as it would follow the inserted prompt in Cursor's input.
import type { CommandDef } from '../types';
import type { ExpandInput, Expansion } from './parts';

export function expandCursor(def: Pick<CommandDef, 'template'>, input: ExpandInput): Expansion {
  const extra = input.args.trim();
  return { parts: [{ kind: 'text', text: extra ? `${def.template}\n\n${extra}` : def.template }], attach: [] };
}
