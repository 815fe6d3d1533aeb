// A command's text with its arguments put in, as its own agent would put them in (each dialect's
// rules are in dialects/, one file each), before the host runs its shell lines and reads its files.
import { codexWords, namedValues, shellWords } from './args';
import { expandClaude } from './dialects/claude';
import { expandCodex } from './dialects/codex';
import { expandCursor } from './dialects/cursor';
import { expandGemini } from './dialects/gemini';
import { expandOpencode } from './dialects/opencode';
import type { ExpandInput, Expansion } from './dialects/parts';
import { expandVscode } from './dialects/vscode';
import type { CommandDef, CommandInput } from './types';

export type { ExpandInput, Expansion, Part } from './dialects/parts';

/** The named values the command asks for that were neither typed as `name=value` nor given. */
export function missingInputs(def: Pick<CommandDef, 'dialect' | 'inputs'>, args: string, given: Record<string, string>): CommandInput[] {
  if (!def.inputs.length) return [];
  const { named } = namedValues(def.dialect === 'codex' ? codexWords(args) : shellWords(args));
  return def.inputs.filter((i) => given[i.name] === undefined && !named.has(i.name));
}

export function expandCommand(def: Pick<CommandDef, 'dialect' | 'template' | 'argumentNames' | 'inputs'>, input: ExpandInput): Expansion {
  switch (def.dialect) {
    case 'claude':
      return expandClaude(def, input);
    case 'opencode':
      return expandOpencode(def, input);
    case 'codex':
      return expandCodex(def, input);
    case 'cursor':
      return expandCursor(def, input);
    case 'vscode':
      return expandVscode(def, input);
    case 'gemini':
      return expandGemini(def, input);
  }
}

/** `/name args` → the name and what follows it; null when the text is no slash command. */
export function parseSlash(text: string): { name: string; args: string } | null {
  const m = /^\/([^\s/][^\s]*)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!m) return null;
  return { name: m[1], args: (m[2] ?? '').trim() };
}
