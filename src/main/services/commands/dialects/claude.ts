// Claude Code's commands and skills (and Loupe's own `.loupe/commands`, which follow them):
// `$ARGUMENTS` is what was typed after the name, as typed; `$ARGUMENTS[N]` and its shorthand `$N`
// are the N-th argument counting from 0 (`$0` is the first: Claude Code numbers them so for
// commands as for skills), split as a shell splits words; a position past the last argument stays
// as written, as it does there. Named arguments (`arguments: [issue, branch]`) are `$issue`,
// `$branch`. `${CLAUDE_SKILL_DIR}` and `${CLAUDE_SESSION_ID}` are filled in. When the text uses
// none of these and arguments were given, they follow it as `ARGUMENTS: …`. `` !`cmd` `` lines and
// ```! blocks run before the prompt is sent (through the gate), and `@path` attaches a file.
import { shellWords } from '../args';
import type { CommandDef } from '../types';
import { atPaths, backtickShell, joined, type ExpandInput, type Expansion, type Part } from './parts';

function uses(template: string, names: string[]): boolean {
  if (/\$ARGUMENTS|\$\d/.test(template)) return true;
  return names.some((n) => new RegExp(`\\$${escapeRe(n)}(?![\\w-])`).test(template));
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Every placeholder in one pass, so a value put in is never read as a placeholder itself. */
export function substituteClaude(text: string, input: Pick<ExpandInput, 'args' | 'sessionId' | 'skillDir'>, names: string[]): string {
  const words = shellWords(input.args);
  // Longest names first, so `$issue-id` is not read as `$issue` followed by `-id`.
  const named = [...names].sort((a, b) => b.length - a.length).map(escapeRe);
  const re = new RegExp(`\\$ARGUMENTS\\[(\\d+)\\]|\\$ARGUMENTS|\\$(\\d+)|\\$\\{(CLAUDE_SESSION_ID|CLAUDE_SKILL_DIR)\\}${named.length ? `|\\$(${named.join('|')})(?![\\w-])` : ''}`, 'g');
  return text.replace(re, (whole, indexed: string | undefined, short: string | undefined, env: string | undefined, name: string | undefined) => {
    if (env === 'CLAUDE_SESSION_ID') return input.sessionId;
    if (env === 'CLAUDE_SKILL_DIR') return input.skillDir ?? whole;
    // Without named arguments the fourth argument is the offset, not a group.
    if (typeof name === 'string') return words[names.indexOf(name)] ?? '';
    if (indexed === undefined && short === undefined) return input.args;
    const i = Number(indexed ?? short);
    return i < words.length ? words[i] : whole;
  });
}

export function expandClaude(def: Pick<CommandDef, 'template' | 'argumentNames'>, input: ExpandInput): Expansion {
  const names = def.argumentNames;
  const parts: Part[] = backtickShell(def.template, true).map((s) =>
    s.kind === 'shell' ? { kind: 'shell', command: substituteClaude(s.text, input, names), style: 'raw' } : { kind: 'text', text: substituteClaude(s.text, input, names) },
  );
  if (input.args.trim() && !uses(def.template, names)) parts.push({ kind: 'text', text: `\n\nARGUMENTS: ${input.args}` });
  const text = parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
  return { parts: joined(parts), attach: atPaths(text) };
}
