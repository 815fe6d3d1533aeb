// Answers several conversations on one scripted server, each by its own script: a request
// belongs to the conversation whose task (its first user message) matches, and gets that
// script's reply for its turn (the number of answers already in it). A parent and its
// subagents, running at once, each get their own next reply whatever order their requests
// arrive in.
import type { RecordedRequest, Responder, ScriptedReply } from './scriptedLlm';

export interface Conversation {
  /** Matches the conversation's first user message: its task. */
  when: string | RegExp;
  /** The reply for each turn (0-based); past the end, the last one again. */
  replies: ScriptedReply[] | ((turn: number, req: RecordedRequest) => ScriptedReply | Promise<ScriptedReply>);
}

export interface Routed {
  respond: Responder;
  /** The requests each conversation got, by its index in the list. */
  seen: RecordedRequest[][];
}

const text = (content: unknown): string => (typeof content === 'string' ? content : Array.isArray(content) ? content.map((p) => (p && typeof p === 'object' && 'text' in p ? String(p.text) : '')).join('') : '');

/** The conversation's task: its first user message. */
export const taskOf = (req: RecordedRequest): string => text((req.body.messages ?? []).find((m) => m.role === 'user')?.content);

/** Its turn: how many answers the conversation already holds. */
export const turnOf = (req: RecordedRequest): number => (req.body.messages ?? []).filter((m) => m.role === 'assistant').length;

export function byConversation(list: Conversation[]): Routed {
  const seen: RecordedRequest[][] = list.map(() => []);
  const respond: Responder = (req) => {
    const task = taskOf(req);
    const i = list.findIndex((c) => (typeof c.when === 'string' ? task.includes(c.when) : c.when.test(task)));
    if (i < 0) return { status: 500, errorBody: { error: { message: `no conversation scripted for the task ${JSON.stringify(task.slice(0, 80))}`, type: 'server_error' } } };
    seen[i].push(req);
    const c = list[i];
    const turn = turnOf(req);
    if (typeof c.replies === 'function') return c.replies(turn, req);
    return c.replies[Math.min(turn, c.replies.length - 1)];
  };
  return { respond, seen };
}
