// VS Code's prompt files (`.github/prompts/*.prompt.md`): `${input:name}` and
// `${input:name:placeholder}` are values the person gives, as `name=value` after the command or,
// when missing, when asked (the composer shows a field for each; `loupe run` asks on a terminal);
// `${workspaceFolder}` and `${workspaceFolderBasename}` are the open folder. The editor's
// variables (`${selection}`, `${file}`, …) have no editor here and stay as written. Other words
// typed after the name follow the prompt as extra information, as VS Code's chat input does.
import path from 'node:path';
import { namedValues, shellWords } from '../args';
import type { CommandDef } from '../types';
import type { ExpandInput, Expansion } from './parts';

export function expandVscode(def: Pick<CommandDef, 'template' | 'inputs'>, input: ExpandInput): Expansion {
  const { named, rest } = namedValues(shellWords(input.args));
  const given = (name: string) => input.inputs[name] ?? named.get(name);
  let text = def.template.replace(/\$\{input:([A-Za-z_][\w-]*)(?::[^}]*)?\}|\$\{workspaceFolder\}|\$\{workspaceFolderBasename\}/g, (whole, name: string | undefined) => {
    if (name !== undefined) return given(name) ?? whole;
    return whole === '${workspaceFolder}' ? input.root : path.basename(input.root);
  });
  // Words that were not inputs: what the person added after the command.
  const extra = def.inputs.length ? rest.join(' ') : input.args.trim();
  if (extra) text = `${text}\n\n${extra}`;
  return { parts: [{ kind: 'text', text }], attach: [] };
}
