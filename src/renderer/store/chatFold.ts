// The chat's one fold: live loop events and a reopened session's kept entries both become the
// rendered conversation through applyChatEvent, so a reload draws what was drawn live.
import type { AttachmentView, ChatEvent, ChatMode, ChatTranscriptEntry, HookDecisionName, HookEventName, SlashSource, SubagentStatus, ToolEffect } from '../../shared/contract';

/** A hook that decided something: under its tool card, or on its own line (a prompt's, a stop's). */
export interface HookMark {
  event: HookEventName;
  source: string;
  decision: HookDecisionName;
  ms: number;
  hook: string;
  reason?: string;
}

/** `failed`: the call worked but the command it ran exited non-zero (`exitCode` says how). */
export type ToolStatus = 'running' | 'done' | 'error' | 'failed';

export type ChatItem =
  /**
   * correlationId: the request it started (known once the host accepted it), for "Undo changes from
   * here". `steer`: sent while that request ran and given to the model at a tool boundary. `mode`: plan.
   */
  | {
      kind: 'user';
      id: string;
      text: string;
      correlationId?: string;
      steer?: boolean;
      mode?: ChatMode;
      attachments?: AttachmentView[];
      /** The message was a slash command (or a skill by its name): what it became, as sent. */
      expansion?: { name: string; source: SlashSource; text: string };
    }
  /** A plan-mode answer, kept at `path`; correlationId: the planning request (its changes will carry it). */
  | { kind: 'plan'; id: string; path: string; text: string; correlationId?: string }
  | { kind: 'assistant'; id: string; text: string; streaming: boolean }
  /** The model's reasoning: shown collapsed, apart from the answer. */
  | { kind: 'reasoning'; id: string; text: string; streaming: boolean }
  /** title, effect and summary: what the tool says of itself and of this call (summary: once the arguments are complete). */
  /** correlationId: the request the call was made for (its undo marks the card undone). hooks: the hooks that decided something about it. */
  | { kind: 'tool'; id: string; tool: string; title: string; effect: ToolEffect; summary: string; args: unknown; argsText: string; status: ToolStatus; output: string; error?: string; errorCode?: string; deniedBy?: string; data?: Record<string, unknown>; durationMs?: number; exitCode?: number; correlationId?: string; hooks?: HookMark[] }
  | { kind: 'hook'; id: string; mark: HookMark }
  | { kind: 'error'; id: string; code: string; message: string }
  /** `retry`: the model request is being retried; the next retry updates this line instead of adding one. */
  | { kind: 'note'; id: string; text: string; retry?: boolean }
  /** Older messages were summarised (or dropped) to fit the window; the summary can be opened. */
  | { kind: 'compaction'; id: string; removed: number; mode: 'summary' | 'dropped'; summary: string; tokensBefore: number; tokensAfter: number }
  /** A subagent's card (id: its agent id): its figures, and its own conversation folded inside, its subagents' cards included. */
  | SubagentItem;

export interface SubagentItem {
  kind: 'subagent';
  id: string;
  /** The parent's tool call that started it (that call's own card is not drawn beside it). */
  callId: string;
  description: string;
  agentType: string;
  status: SubagentStatus;
  background: boolean;
  readOnly: boolean;
  tools: string[];
  maxTurns?: number;
  tokenBudget?: number;
  turns: number;
  tokens: number;
  costUsd?: number;
  items: ChatItem[];
  /** Once it ended: its final words, the files it changed, why it stopped. */
  text?: string;
  files?: string[];
  reason?: string;
  worktree?: string;
}

/** Live tool output kept per card: the tail, so a chatty command cannot grow the store forever. */
export const TOOL_OUTPUT_CAP = 200_000;

let seq = 0;
export const nextId = (p: string) => `${p}-${++seq}`;

/** The request the conversation is in now: the person's last message's, once the host named it (a steer joins the request it was sent into). */
function requestOf(items: ChatItem[]): { correlationId?: string } {
  for (let i = items.length - 1; i >= 0; i--) {
    const it = items[i];
    if (it.kind === 'user' && !it.steer) return it.correlationId ? { correlationId: it.correlationId } : {};
  }
  return {};
}

/** A reopened session: its kept entries through the same fold as the live events. */
export function foldTranscript(entries: ChatTranscriptEntry[], items: ChatItem[] = []): ChatItem[] {
  return entries.reduce(applyChatEvent, items);
}

/**
 * Applies one loop event (or the person's message) to the rendered conversation. Pure, and the
 * only fold: the live stream and a reopened session's entries both go through it.
 */
export function applyChatEvent(items: ChatItem[], e: ChatEvent | ChatTranscriptEntry): ChatItem[] {
  if ('agent_id' in e && e.agent_id) return applyAgentEvent(items, e.agent_id, e.parent_session_id, e);
  const last = items[items.length - 1];
  const updateTool = (id: string, f: (t: Extract<ChatItem, { kind: 'tool' }>) => Extract<ChatItem, { kind: 'tool' }>) => {
    const i = items.findIndex((x) => x.kind === 'tool' && x.id === id);
    if (i < 0) return null;
    const next = items.slice();
    next[i] = f(items[i] as Extract<ChatItem, { kind: 'tool' }>);
    return next;
  };
  const settle = (list: ChatItem[]) => list.map((x) => ((x.kind === 'assistant' || x.kind === 'reasoning') && x.streaming ? { ...x, streaming: false } : x));
  switch (e.type) {
    case 'user_message':
      return [...settle(items), { kind: 'user', id: nextId('u'), text: e.text, ...(e.correlation_id ? { correlationId: e.correlation_id } : {}), ...(e.mode === 'plan' ? { mode: e.mode } : {}), ...(e.attachments?.length ? { attachments: e.attachments } : {}) }];
    case 'request_started': {
      // Live, the person's message was drawn before the host named its request. (Kept entries
      // have no request_started: the host keeps the message, named, in its place.)
      const id = 'correlation_id' in e ? e.correlation_id : undefined;
      if (!id) return items;
      const at = items.findLastIndex((x) => x.kind === 'user' && !x.steer);
      const user = at >= 0 ? items[at] : null;
      const mode = e.mode === 'plan' ? { mode: e.mode } : {};
      if (user?.kind === 'user' && !user.correlationId) {
        // What followed the message belongs to that request too (a plan names the request it executes).
        const next = items.map((x, i) => (i > at && (x.kind === 'plan' || x.kind === 'tool') && !x.correlationId ? { ...x, correlationId: id } : x));
        next[at] = { ...user, correlationId: id, ...mode };
        return next;
      }
      if (user?.kind === 'user' && user.correlationId === id) return items;
      // A request this page did not draw (a queued message the host sent next): its prompt is the message.
      return [...settle(items), { kind: 'user', id: nextId('u'), text: e.prompt, correlationId: id, ...mode }];
    }
    case 'steer':
      return [...settle(items), { kind: 'user', id: nextId('u'), text: e.text, steer: true }];
    case 'command_expanded': {
      // The person's message it came from: the last one not yet named by another request.
      const id = 'correlation_id' in e ? e.correlation_id : undefined;
      const expansion = { name: e.name, source: e.source, text: e.text };
      const at = items.findLastIndex((x) => x.kind === 'user' && !x.steer);
      const user = at >= 0 ? items[at] : null;
      if (user?.kind === 'user' && (!user.correlationId || !id || user.correlationId === id)) {
        const naming = id && !user.correlationId;
        // Named as request_started names it: what followed the message belongs to that request too.
        const next = naming ? items.map((x, i) => (i > at && (x.kind === 'plan' || x.kind === 'tool') && !x.correlationId ? { ...x, correlationId: id } : x)) : items.slice();
        next[at] = { ...user, expansion, ...(naming ? { correlationId: id } : {}) };
        return next;
      }
      // A request this page did not draw (a queued message the host sent next).
      return [...settle(items), { kind: 'user', id: nextId('u'), text: `/${e.name}`, expansion, ...(id ? { correlationId: id } : {}) }];
    }
    case 'plan': {
      // The request that planned it: the person's message before it (kept entries carry no correlation of their own).
      const user = items.findLast((x) => x.kind === 'user' && !x.steer);
      const correlationId = user?.kind === 'user' ? user.correlationId : undefined;
      // The answer is the plan: shown once, as the card, not again as text above it.
      const answer = last?.kind === 'assistant' && last.text.trim() === e.text.trim();
      return [...settle(answer ? items.slice(0, -1) : items), { kind: 'plan', id: nextId('p'), path: e.path, text: e.text, ...(correlationId ? { correlationId } : {}) }];
    }
    case 'text_delta':
      if (last?.kind === 'assistant' && last.streaming) return [...items.slice(0, -1), { ...last, text: last.text + e.text }];
      return [...settle(items), { kind: 'assistant', id: nextId('a'), text: e.text, streaming: true }];
    case 'reasoning_delta':
      if (last?.kind === 'reasoning' && last.streaming) return [...items.slice(0, -1), { ...last, text: last.text + e.text }];
      return [...settle(items), { kind: 'reasoning', id: nextId('r'), text: e.text, streaming: true }];
    case 'notice':
      return [...items, { kind: 'note', id: nextId('n'), text: e.text }];
    case 'tool_call_streaming':
      return [...settle(items), { kind: 'tool', id: e.call_id, tool: e.tool, title: e.title, effect: e.effect, summary: '', args: undefined, argsText: '', status: 'running', output: '', ...requestOf(items) }];
    case 'tool_call_args':
      return updateTool(e.call_id, (t) => ({ ...t, argsText: t.argsText + e.delta })) ?? items;
    case 'tool_call_started':
      return (
        updateTool(e.call_id, (t) => ({ ...t, tool: e.tool, title: e.title, effect: e.effect, summary: e.summary, args: e.args, status: 'running' })) ?? [
          ...settle(items),
          { kind: 'tool', id: e.call_id, tool: e.tool, title: e.title, effect: e.effect, summary: e.summary, args: e.args, argsText: '', status: 'running', output: '', ...requestOf(items) },
        ]
      );
    case 'tool_output':
      return updateTool(e.call_id, (t) => ({ ...t, output: (t.output + e.text).slice(-TOOL_OUTPUT_CAP) })) ?? items;
    case 'tool_call_finished': {
      // A command that ran and exited non-zero is a success of the tool and a failure of the command.
      const exit = typeof e.data?.exit_code === 'number' ? e.data.exit_code : undefined;
      return (
        updateTool(e.call_id, (t) => ({
          ...t,
          status: !e.ok ? 'error' : exit ? 'failed' : 'done',
          ...(exit !== undefined ? { exitCode: exit } : {}),
          // What the person reads: the tool's words for them where its words to the model differ.
          output: e.for_person ?? e.output,
          data: e.data,
          // A session saved before results were kept knows no duration.
          durationMs: Number.isFinite(e.duration_ms) ? e.duration_ms : undefined,
          ...(e.error ? { error: e.error.for_person ?? e.error.message, errorCode: e.error.code, ...(typeof e.error.details?.denied_by === 'string' ? { deniedBy: e.error.details.denied_by } : {}) } : {}),
        })) ?? items
      );
    }
    case 'hook': {
      const mark: HookMark = { event: e.event, source: e.source, decision: e.decision, ms: e.ms, hook: e.hook, ...(e.reason ? { reason: e.reason } : {}) };
      const under = e.call_id ? updateTool(e.call_id, (t) => ({ ...t, hooks: [...(t.hooks ?? []), mark] })) : null;
      return under ?? [...settle(items), { kind: 'hook', id: nextId('h'), mark }];
    }
    case 'retry': {
      // Whatever streamed in the failed attempt is void.
      const kept = items.filter((x) => !((x.kind === 'assistant' || x.kind === 'reasoning') && x.streaming));
      const text = `The model request failed (${e.reason}); retry ${e.attempt} in ${(e.delay_ms / 1000).toFixed(1)} s…`;
      // Retries of one failure are one line that counts up, not a line each.
      const prevRetry = kept[kept.length - 1];
      if (prevRetry?.kind === 'note' && prevRetry.retry) return [...kept.slice(0, -1), { ...prevRetry, text }];
      return [...kept, { kind: 'note', id: nextId('n'), text, retry: true }];
    }
    case 'compacted':
      return [
        ...settle(items),
        { kind: 'compaction', id: nextId('c'), removed: e.removed_messages, mode: e.mode, summary: e.summary ?? '', tokensBefore: e.tokens_before, tokensAfter: e.tokens_after },
      ];
    case 'error':
      return [
        ...settle(items).map((x) => (x.kind === 'tool' && x.status === 'running' ? { ...x, status: 'error' as const, error: e.code === 'ABORTED' ? 'Stopped.' : x.error } : x)),
        // A stop says what it kept, cancelled and left unrun.
        e.code === 'ABORTED' ? { kind: 'note', id: nextId('n'), text: e.message || 'Stopped.' } : { kind: 'error', id: nextId('e'), code: e.code, message: e.message },
      ];
    case 'request_finished':
      return settle(items);
    default:
      return items;
  }
}


/** The card with this id, wherever it is nested, changed by `f`; null when there is none. */
function updateCard(items: ChatItem[], id: string, f: (c: SubagentItem) => SubagentItem): ChatItem[] | null {
  for (let i = 0; i < items.length; i++) {
    const it = items[i];
    if (it.kind !== 'subagent') continue;
    const next = it.id === id ? f(it) : (() => {
      const inner = updateCard(it.items, id, f);
      return inner ? { ...it, items: inner } : null;
    })();
    if (next) {
      const out = items.slice();
      out[i] = next;
      return out;
    }
  }
  return null;
}

/** A subagent's event: its card is made, counts its turns and tokens, and folds its conversation inside. */
function applyAgentEvent(items: ChatItem[], agentId: string, parentId: string | undefined, e: ChatEvent | ChatTranscriptEntry): ChatItem[] {
  const { agent_id: _a, parent_session_id: _p, ...plain } = e as ChatEvent;
  switch (plain.type) {
    case 'subagent_started': {
      const card: SubagentItem = {
        kind: 'subagent',
        id: agentId,
        callId: plain.call_id,
        description: plain.description,
        agentType: plain.agent_type,
        status: 'running',
        background: plain.background,
        readOnly: plain.read_only,
        tools: plain.tools ?? [],
        ...(plain.max_turns ? { maxTurns: plain.max_turns } : {}),
        ...(plain.token_budget ? { tokenBudget: plain.token_budget } : {}),
        turns: 0,
        tokens: 0,
        items: [],
        ...(plain.worktree ? { worktree: plain.worktree } : {}),
      };
      // A grandchild's card sits inside its parent's card.
      return (parentId ? updateCard(items, parentId, (c) => ({ ...c, items: [...c.items, card] })) : null) ?? [...items, card];
    }
    case 'subagent_finished':
      return (
        updateCard(items, agentId, (c) => ({
          ...c,
          status: plain.status,
          text: plain.text,
          files: plain.files ?? [],
          turns: plain.turns || c.turns,
          tokens: plain.tokens,
          ...(plain.cost_usd !== undefined ? { costUsd: plain.cost_usd } : {}),
          ...(plain.reason ? { reason: plain.reason } : {}),
          items: c.items.map((x) => ((x.kind === 'assistant' || x.kind === 'reasoning') && x.streaming ? { ...x, streaming: false } : x.kind === 'tool' && x.status === 'running' ? { ...x, status: 'error' as const, error: 'Stopped.' } : x)),
        })) ?? items
      );
    case 'turn_started':
      return updateCard(items, agentId, (c) => ({ ...c, turns: plain.turn })) ?? items;
    case 'usage':
      return updateCard(items, agentId, (c) => ({ ...c, tokens: plain.usage.session.total_tokens, ...(plain.usage.session.cost_usd !== undefined ? { costUsd: plain.usage.session.cost_usd } : {}) })) ?? items;
    case 'request_started':
    case 'request_finished':
      // The card says it all: its task is its description, its end is subagent_finished.
      return items;
    default:
      return updateCard(items, agentId, (c) => ({ ...c, items: applyChatEvent(c.items, plain as ChatEvent) })) ?? items;
  }
}
