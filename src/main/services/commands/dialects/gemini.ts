// Gemini CLI's commands (`.gemini/commands/**/*.toml`): `@{path}` puts a file's content in its
// place, `!{cmd}` a command's output (braces inside must balance), and `{{args}}` what was typed
// after the name: as typed outside a shell block, shell-quoted inside one. A prompt without
// `{{args}}` gets the whole typed command after a blank line when arguments were given. A failing
// command's output is followed by its exit status, as Gemini CLI shows it.
import { shellQuote } from '../args';
import type { CommandDef } from '../types';
import { joined, type ExpandInput, type Expansion, type Part } from './parts';

/** The blocks `<sigil>{…}` with balanced braces, and the text around them. */
function blocks(template: string): { kind: 'text' | 'shell' | 'file'; text: string }[] {
  const out: { kind: 'text' | 'shell' | 'file'; text: string }[] = [];
  let at = 0;
  let i = 0;
  while (i < template.length - 1) {
    const sigil = template[i];
    if ((sigil === '!' || sigil === '@') && template[i + 1] === '{') {
      let depth = 0;
      let j = i + 1;
      for (; j < template.length; j++) {
        if (template[j] === '{') depth++;
        else if (template[j] === '}' && --depth === 0) break;
      }
      if (j < template.length) {
        if (i > at) out.push({ kind: 'text', text: template.slice(at, i) });
        out.push({ kind: sigil === '!' ? 'shell' : 'file', text: template.slice(i + 2, j).trim() });
        at = i = j + 1;
        continue;
      }
    }
    i++;
  }
  if (at < template.length) out.push({ kind: 'text', text: template.slice(at) });
  return out;
}

export function expandGemini(def: Pick<CommandDef, 'template'>, input: ExpandInput): Expansion {
  const args = input.args.trim();
  const parts: Part[] = blocks(def.template).map((b) => {
    if (b.kind === 'file') return { kind: 'file', path: b.text };
    if (b.kind === 'shell') return { kind: 'shell', command: b.text.replace(/\{\{args\}\}/g, () => shellQuote(args)), style: 'gemini' };
    return { kind: 'text', text: b.text.replace(/\{\{args\}\}/g, () => args) };
  });
  if (!def.template.includes('{{args}}') && args) parts.push({ kind: 'text', text: `\n\n${input.typed.trim()}` });
  return { parts: joined(parts), attach: [] };
}
