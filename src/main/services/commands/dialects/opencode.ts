// OpenCode's commands (`.opencode/command/`, `.opencode/commands/`): `$ARGUMENTS` is what was
// typed, as typed; `$1`, `$2`… count from 1, and the highest-numbered placeholder in the file takes
// every argument from its position on (so `$2` of a file using `$1` and `$2` is "the rest"); a
// position with no argument becomes empty. Arguments are split on spaces, a quoted one kept whole.
// When the file has no placeholder and arguments were given, they follow it after a blank line.
// `` !`cmd` `` runs before the prompt is sent and `@path` attaches a file. The result is trimmed.
import { opencodeWords } from '../args';
import type { CommandDef } from '../types';
import { atPaths, backtickShell, joined, type ExpandInput, type Expansion, type Part } from './parts';

export function expandOpencode(def: Pick<CommandDef, 'template'>, input: ExpandInput): Expansion {
  const words = opencodeWords(input.args);
  const numbers = [...def.template.matchAll(/\$(\d+)/g)].map((m) => Number(m[1]));
  const last = numbers.length ? Math.max(...numbers) : 0;
  const subst = (text: string) =>
    text.replace(/\$ARGUMENTS|\$(\d+)/g, (_whole, n: string | undefined) => {
      if (n === undefined) return input.args;
      const i = Number(n) - 1;
      if (i < 0 || i >= words.length) return '';
      return Number(n) === last ? words.slice(i).join(' ') : words[i];
    });
  const parts: Part[] = backtickShell(def.template, false).map((s) => (s.kind === 'shell' ? { kind: 'shell', command: subst(s.text), style: 'raw' } : { kind: 'text', text: subst(s.text) }));
  if (!numbers.length && !def.template.includes('$ARGUMENTS') && input.args.trim()) parts.push({ kind: 'text', text: `\n\n${input.args}` });
  const all = joined(parts);
  // Trimmed as OpenCode trims the whole prompt.
  const first = all[0];
  const lastPart = all[all.length - 1];
  if (first?.kind === 'text') all[0] = { kind: 'text', text: first.text.trimStart() };
  if (lastPart?.kind === 'text') all[all.length - 1] = { kind: 'text', text: (all[all.length - 1] as { text: string }).text.trimEnd() };
  return { parts: joined(all), attach: atPaths(all.map((p) => (p.kind === 'text' ? p.text : '')).join('')) };
}
