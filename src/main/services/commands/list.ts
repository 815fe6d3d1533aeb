// Every slash command of a workspace as one list: Loupe's built-ins, the custom commands, and the
// skills (each can be called by its name, as in Claude Code). The composer's `/` picker, the
// settings and an ACP client's `available_commands_update` all read this one function.
import type { SlashCommandView, SlashCommandsView } from '../../../shared/contract';
import type { SkillCatalog } from '../skills/catalog';
import type { Skill } from '../skills/types';
import { BUILTIN_COMMANDS } from './builtins';
import { commandPath, type CommandCatalog } from './catalog';
import type { CommandDef } from './types';

function commandView(c: CommandDef): SlashCommandView {
  return {
    name: c.name,
    kind: 'command',
    source: c.scope,
    location: c.source,
    path: commandPath(c),
    description: c.description,
    ...(c.argumentHint ? { argument_hint: c.argumentHint } : {}),
    dialect: c.dialect,
    ...(c.inputs.length ? { inputs: c.inputs.map((i) => ({ ...i })) } : {}),
    ...(c.allowedTools ? { allowed_tools: [...c.allowedTools] } : {}),
    problems: [...c.problems],
    ...(c.shadowedBy ? { shadowed_by: c.shadowedBy } : {}),
  };
}

export function skillView(s: Skill): SlashCommandView {
  const hint = typeof s.fields['argument-hint'] === 'string' ? s.fields['argument-hint'] : undefined;
  return {
    name: s.name,
    kind: 'skill',
    source: s.scope,
    location: s.source,
    path: `${s.shownDir}/SKILL.md`,
    description: s.description,
    ...(hint ? { argument_hint: hint } : {}),
    dialect: 'claude',
    ...(s.allowedTools ? { allowed_tools: [...s.allowedTools] } : {}),
    problems: [...s.problems],
    ...(s.shadowedBy ? { shadowed_by: s.shadowedBy } : {}),
  };
}

/**
 * Built-ins first, then commands, then skills; a skill whose name a command already takes is
 * listed as shadowed by it (the skill tool still loads it). Shadowed entries come last.
 */
export async function listSlashCommands(services: { skills: SkillCatalog; commands: CommandCatalog }): Promise<SlashCommandsView> {
  const [commands, skills] = await Promise.all([services.commands.list(), services.skills.list()]);
  const builtins: SlashCommandView[] = BUILTIN_COMMANDS.map((b) => ({ name: b.name, kind: 'command', source: 'built-in', description: b.description, ...(b.argumentHint ? { argument_hint: b.argumentHint } : {}), problems: [] }));
  const taken = new Set([...builtins.map((b) => b.name), ...commands.commands.map((c) => c.name)]);
  // `user-invocable: false`: the agent's to load, not offered to type.
  const usable = skills.skills.filter((s) => !s.agentOnly).map((s) => {
    const v = skillView(s);
    if (!taken.has(s.name)) return v;
    return { ...v, shadowed_by: builtins.some((b) => b.name === s.name) ? 'built-in' : commandPath(commands.commands.find((c) => c.name === s.name)!), problems: [...v.problems, `/${s.name} types the command of that name; the agent can still load this skill`] };
  });
  return {
    commands: [...builtins, ...commands.commands.map(commandView), ...usable.filter((v) => !v.shadowed_by), ...commands.shadowed.map(commandView), ...usable.filter((v) => v.shadowed_by), ...skills.shadowed.map(skillView)],
    problems: [...commands.problems, ...skills.problems],
  };
}
