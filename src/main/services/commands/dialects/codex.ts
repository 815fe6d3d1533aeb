// Codex's prompts (`~/.codex/prompts/*.md`): `$1` to `$9` are the first nine arguments counting
// from 1, `$ARGUMENTS` all of them joined by one space, `$$` a literal dollar sign; an argument in
// double quotes keeps its spaces. A prompt that names placeholders in capitals (`$FILE`) takes
// `NAME=value` arguments instead, and asks for any not given. Codex runs no shell line and reads
// no file from the text. Loupe adds what Codex leaves out: arguments given to a prompt with no
// placeholder follow it after a blank line instead of being lost.
import { codexWords, namedValues } from '../args';
import type { CommandDef } from '../types';
import type { ExpandInput, Expansion } from './parts';

export function expandCodex(def: Pick<CommandDef, 'template' | 'inputs'>, input: ExpandInput): Expansion {
  const words = codexWords(input.args);
  if (def.inputs.length) {
    const { named } = namedValues(words);
    const value = (name: string) => input.inputs[name] ?? named.get(name) ?? '';
    const text = def.template.replace(/\$\$|\$([A-Z][A-Z0-9_]*)/g, (whole, name: string | undefined) => (name === undefined ? '$' : name === 'ARGUMENTS' ? words.join(' ') : def.inputs.some((i) => i.name === name) ? value(name) : whole));
    return { parts: [{ kind: 'text', text }], attach: [] };
  }
  let used = false;
  const text = def.template.replace(/\$\$|\$([1-9])|\$ARGUMENTS/g, (whole, n: string | undefined) => {
    if (whole === '$$') return '$';
    used = true;
    return n === undefined ? words.join(' ') : (words[Number(n) - 1] ?? '');
  });
  return { parts: [{ kind: 'text', text: !used && input.args.trim() ? `${text}\n\n${input.args.trim()}` : text }], attach: [] };
}
