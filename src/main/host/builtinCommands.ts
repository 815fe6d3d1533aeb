// What Loupe's built-in slash commands answer without a model (services/commands/builtins.ts
// lists them): `/skills` the skills and commands in reach, `/undo` the last request's changes,
// `/clear` a fresh session. `/plan` and `/compact` become requests (requests.ts). The composer
// does the app's version of some of them itself (the undo preview, a new session, the mode pill);
// these are what any other client gets, `loupe run` and ACP included.
import { InvalidArgumentError, LoupeError } from '../errors';
import { listSlashCommands } from '../services/commands/list';
import { undoRequests } from '../services/modlog/groupRollback';
import type { LiveSession, WorkspaceChats } from './chatSessions';
import type { SlashPlan } from './slashCommands';

export interface BuiltinReply {
  text: string;
  /** The session the reply belongs to when it is not the one asked in (`/clear`). */
  session?: LiveSession;
}

export async function builtinReply(w: WorkspaceChats, s: LiveSession, plan: Extract<SlashPlan, { kind: 'builtin' }>, opts: { create: () => LiveSession }): Promise<BuiltinReply> {
  switch (plan.name) {
    case 'skills':
      return { text: await skillsText(w) };
    case 'clear':
      return { text: 'A new session: the conversation before is kept in the session list.', session: opts.create() };
    case 'undo':
      return { text: await undoLast(w, s) };
    default:
      throw new InvalidArgumentError(`/${plan.name} is not a command that answers by itself.`);
  }
}

async function skillsText(w: WorkspaceChats): Promise<string> {
  const { commands, problems } = await listSlashCommands(w.services);
  const line = (c: (typeof commands)[number]) => {
    const where = c.source === 'built-in' ? 'built-in' : `${c.source === 'personal' ? 'yours' : "the repository's"}, ${c.path}`;
    const notes = [...(c.shadowed_by ? [`not used: ${c.shadowed_by} is`] : []), ...c.problems.filter((p) => !c.shadowed_by || !p.includes('is used instead'))];
    return `- /${c.name}${c.argument_hint ? ` ${c.argument_hint}` : ''} (${where}): ${c.description || '(no description)'}${notes.length ? `\n  ! ${notes.join('\n  ! ')}` : ''}`;
  };
  const group = (list: typeof commands) => {
    const unused = list.filter((c) => c.shadowed_by).length;
    return `${list.length - unused}${unused ? `, and ${unused} not used` : ''}`;
  };
  const skills = commands.filter((c) => c.kind === 'skill');
  const custom = commands.filter((c) => c.kind === 'command' && c.source !== 'built-in');
  return [
    skills.length ? `Skills (${group(skills)}):\n${skills.map(line).join('\n')}` : 'No skills here: put one in .claude/skills/<name>/SKILL.md, .agents/skills/… or ~/.claude/skills/….',
    custom.length ? `Commands (${group(custom)}):\n${custom.map(line).join('\n')}` : 'No custom commands here.',
    `Built in: ${commands.filter((c) => c.source === 'built-in').map((c) => `/${c.name}`).join(', ')}.`,
    ...(problems.length ? [`Not read:\n${problems.map((p) => `- ${p.path}: ${p.reason}`).join('\n')}`] : []),
  ].join('\n\n');
}

/** The session's latest request with changes in effect, undone as "Undo changes from here" would; a conflict changes nothing. */
async function undoLast(w: WorkspaceChats, s: LiveSession): Promise<string> {
  if (s.running) throw new InvalidArgumentError('The agent is still working in this session. Stop it first, then undo.');
  const requests = s.record.requests;
  for (let i = requests.length - 1; i >= 0; i--) {
    const correlation = requests[i].correlation_id;
    try {
      const out = await undoRequests(w.services.modlog, { sessionId: s.record.id, correlations: [correlation] }, { onConflict: 'refuse', tool: 'undo', reason: `undo of request ${correlation} (/undo)` });
      return `Undid the changes of “${requests[i].prompt.slice(0, 80)}” in ${out.files.length} file${out.files.length === 1 ? '' : 's'} (group ${out.group_id}; rolling that group back redoes it).`;
    } catch (err) {
      // A request that changed nothing: the one before it.
      if (err instanceof InvalidArgumentError && /Nothing to undo/.test(err.message)) continue;
      if (err instanceof LoupeError) throw new LoupeError(err.code, `Nothing was undone: ${err.message}`, err.details);
      throw err;
    }
  }
  return 'Nothing to undo: no request of this session has changes in effect.';
}
