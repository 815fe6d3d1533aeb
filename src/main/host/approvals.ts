// The approval queue as the chat shows it: every question of the open folder and of the
// worktrees its sessions work in, each naming its session, and the person's answers — an
// "always" saved as the rule it proposes (or as edited) where the person chose.
import type { ApprovalRequestView, Params } from '../../shared/contract';
import { InvalidArgumentError } from '../errors';
import type { WorkspaceServices } from '../services/workspaceServices';
import type { ChatSessions, WorkspaceChats } from './chatSessions';

export interface ApprovalsOptions {
  sessions: ChatSessions;
  /** The worktree name of an attached folder's services, for approval cards to name it. */
  worktreeOf?: (services: WorkspaceServices) => string | undefined;
}

export class Approvals {
  constructor(private readonly opts: ApprovalsOptions) {}

  /**
   * The one queue's questions, each naming its session (and that session's worktree) when a chat
   * asked; a subagent's names it (its session is the child's, its title the child's description) and its parent.
   */
  list(w: WorkspaceChats = this.opts.sessions.ws()): ApprovalRequestView[] {
    const sessions = this.opts.sessions;
    return w.services.queue.list().map((r) => {
      const owner = r.session_id ? sessions.holder(r.session_id) : undefined;
      const record = owner?.live.get(r.session_id!)?.record;
      const title = record?.title;
      const worktree = owner && owner !== w ? this.opts.worktreeOf?.(owner.services) : undefined;
      const child = record?.parent_session_id ? { agent_id: record.id, parent_session_id: record.parent_session_id } : {};
      return { ...r, always: r.always.map((a) => ({ ...a })), ...(title ? { session_title: title } : {}), ...(worktree ? { worktree } : {}), ...child };
    });
  }

  /** Session ids of the approvals waiting now. */
  waitingSessions(): Set<string> {
    const out = new Set<string>();
    for (const w of this.opts.sessions.all()) for (const r of w.services.queue.list()) if (r.session_id) out.add(r.session_id);
    return out;
  }

  async answer(p: Params<'approvals.answer'>): Promise<{ answered: boolean }> {
    const w = this.opts.sessions.ws();
    const queue = w.services.queue;
    if (typeof p?.id !== 'string') throw new InvalidArgumentError('id must be a string');
    const req = queue.list().find((r) => r.id === p.id);
    if (!req) return { answered: false };
    if (p.answer === 'deny') return { answered: queue.answer(p.id, { answer: 'deny', ...(p.message?.trim() ? { message: p.message.trim() } : {}) }) };
    if (p.answer === 'once') return { answered: queue.answer(p.id, { answer: 'once' }) };
    if (p.answer !== 'always') throw new InvalidArgumentError(`answer must be once, always or deny (got ${JSON.stringify(p.answer)})`);
    if (p.scope !== undefined && p.scope !== 'project' && p.scope !== 'user') throw new InvalidArgumentError(`scope must be "project" or "user" (got ${JSON.stringify(p.scope)})`);
    // Starting a server, a server's own question, running a hook or an agent and a skill's pre-approved tools are no rules: their "always" is the answer itself.
    const kind = req.kind;
    if (kind === 'mcp-server' || kind === 'elicitation' || kind === 'hook' || kind === 'skill' || kind === 'agent') return { answered: queue.answer(p.id, { answer: 'always' }) };
    const proposed = req.always.map((r) => r.pattern);
    const patterns = (p.patterns ?? proposed).map((s) => s.trim()).filter(Boolean);
    if (!patterns.length) throw new InvalidArgumentError('"Allow always" needs a pattern to save.');
    if (p.scope !== 'user' && JSON.stringify(patterns) === JSON.stringify(proposed)) return { answered: queue.answer(p.id, { answer: 'always' }) };
    // An edited rule, or one for this person only: saved as written, and this call allowed once.
    // A card for running outside the sandbox saves rules that say so, edited or not.
    // A network card's rule keeps its host: an edited command pattern must not open every host.
    const hosts = req.always[0]?.hosts;
    const rules = patterns.map((pattern) => ({ kind, pattern, action: 'allow' as const, ...(req.sandboxed === false ? { sandbox: false } : {}), ...(hosts ? { hosts } : {}) }));
    // Saved for the folder that asked: a worktree session's rule goes to the worktree's config.
    const owner = (req.session_id ? this.opts.sessions.holder(req.session_id) : undefined) ?? w;
    if (p.scope === 'user') await owner.services.user.addFolderRules(owner.services.root, rules);
    else await owner.services.project.addRules(rules);
    return { answered: queue.answer(p.id, { answer: 'once' }) };
  }
}
