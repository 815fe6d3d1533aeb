// The slash commands an ACP session offers (`available_commands_update`) and what typing one
// does. A source gives commands; the built-in one has what the app offers as buttons — carry out
// the last plan, undo the last request — and the folder's own (skillCommands: the custom commands
// and skills every Loupe client lists) come after it. A prompt whose text starts with `/name` runs
// the command named so; any other text is a message for the agent.
import type { AvailableCommand } from '@agentclientprotocol/sdk';
import type { ChatMode, ChatSessionView } from '../../../shared/contract';
import { listSlashCommands } from '../../services/commands/list';
import type { CommandCatalog } from '../../services/commands/catalog';
import type { SkillCatalog } from '../../services/skills/catalog';

/** What a command does with the session: answer at once, or send a request (in a mode, else the session's; executing a plan). */
export type CommandOutcome = { reply: string } | { send: { text: string; mode?: ChatMode; plan?: string } };

export interface CommandSession {
  /** The session as the chat shows it: its transcript, its undone requests. */
  view(): Promise<ChatSessionView>;
  /** Undoes the session's latest request whose changes are still in effect, refusing over conflicts; says what it did. */
  undoLast(): Promise<string>;
}

export interface AcpCommand {
  name: string;
  description: string;
  /** Shown while the input after the name is empty; absent: the command takes none. */
  hint?: string;
  run(session: CommandSession, input: string): Promise<CommandOutcome>;
}

/** The folder's catalogs of commands and skills. */
export interface SlashServices {
  skills: SkillCatalog;
  commands: CommandCatalog;
}

/** Where commands come from, for a session in the folder `root`: the built-ins, the person's and the project's own. */
export type CommandSource = (root: string, services: SlashServices) => AcpCommand[] | Promise<AcpCommand[]>;

/** The requests of a session in order, with their mode and whether a plan was saved for each. */
export function requestsOf(view: ChatSessionView): { correlationId: string; mode?: ChatMode; plan: boolean }[] {
  const out: { correlationId: string; mode?: ChatMode; plan: boolean }[] = [];
  for (const e of view.entries) {
    if (e.type === 'user_message' && e.correlation_id) out.push({ correlationId: e.correlation_id, ...(e.mode ? { mode: e.mode } : {}), plan: false });
    else if (e.type === 'plan' && out.length) out[out.length - 1].plan = true;
  }
  return out;
}

export const BUILTIN_COMMANDS: AcpCommand[] = [
  {
    name: 'execute-plan',
    description: 'Carry out the last plan this session made in plan mode; its changes are undone together with it',
    hint: 'anything to add to the plan',
    async run(session, input) {
      const plan = requestsOf(await session.view()).findLast((r) => r.plan);
      if (!plan) return { reply: 'This session has no plan yet: switch to plan mode, ask for one, then run /execute-plan.' };
      return { send: { text: input.trim() || 'Carry out the plan.', mode: 'act', plan: plan.correlationId } };
    },
  },
  {
    name: 'undo',
    description: "Undo the changes of this session's last request (files changed since are kept; a conflict changes nothing)",
    async run(session) {
      return { reply: await session.undoLast() };
    },
  },
];

/** Loupe's own built-ins an editor gets here as well (the others it has its own way to do: modes, a new session, ACP's /undo). */
const HOST_BUILTINS = new Set(['skills', 'compact']);

/**
 * The folder's custom commands and skills (and /skills, /compact), as the composer's `/` picker
 * lists them (listSlashCommands). Running one sends `/name input` as the prompt: the host expands
 * it as for any client (slashCommands.ts), its shell lines asking through the editor's cards.
 */
export const skillCommands: CommandSource = async (_root, services) => {
  const { commands } = await listSlashCommands(services);
  return commands
    .filter((c) => !c.shadowed_by && (c.source !== 'built-in' || HOST_BUILTINS.has(c.name)))
    .map((c) => ({
      name: c.name,
      description: c.source === 'built-in' ? c.description : `${c.description || (c.kind === 'skill' ? 'A skill' : 'A command')} (${c.source === 'personal' ? 'yours' : "the repository's"} ${c.kind})`,
      ...(c.argument_hint ? { hint: c.argument_hint } : {}),
      run: async (_session, input) => ({ send: { text: input.trim() ? `/${c.name} ${input.trim()}` : `/${c.name}` } }),
    }));
};

/** The commands of every source for a folder, the first of a name winning. */
export async function listCommands(sources: CommandSource[], root: string, services: SlashServices): Promise<AcpCommand[]> {
  const out = new Map<string, AcpCommand>();
  for (const source of sources) for (const c of await source(root, services)) if (!out.has(c.name)) out.set(c.name, c);
  return [...out.values()];
}

export const advertised = (commands: AcpCommand[]): AvailableCommand[] => commands.map((c) => ({ name: c.name, description: c.description, ...(c.hint ? { input: { hint: c.hint } } : {}) }));

/** `/name rest` as the command named and its input, when the text starts with a known command. */
export function commandIn(text: string, commands: AcpCommand[]): { command: AcpCommand; input: string } | null {
  const m = /^\/([\w.:/-]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  const command = m ? commands.find((c) => c.name === m[1]) : undefined;
  return command ? { command, input: m![2] ?? '' } : null;
}
