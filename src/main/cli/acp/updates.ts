// A session's chat events as ACP `session/update`s (docs/architecture.md, "loupe acp"): the
// answer and the reasoning as message and thought chunks, each tool call as `tool_call` then
// `tool_call_update`s — its kind from the tool's facts, its locations from its `paths` fact, its
// output as it streams, and for every write a `diff` read back from the modification log with
// `_meta.loupe.modification_id` — a plan-mode answer as a `plan`, each model call's meter as
// `usage_update`. The same translator replays a saved session's transcript for `session/load`.
import type { PlanEntry, SessionUpdate, ToolCallContent, ToolCallLocation } from '@agentclientprotocol/sdk';
import type { ChatEvent, ChatTranscriptEntry, UsageView } from '../../../shared/contract';
import type { ToolKind } from '../../agent/tools/types';
import type { Write } from './writes';

/** Text longer than this is cut in a tool call's content (the model and the log keep it whole). */
export const CONTENT_CHARS = 50_000;

export interface TranslatorDeps {
  /** The client's absolute path for a workspace-relative one. */
  clientPath(rel: string): string;
  /** What the session's tools say of a call: its kind and the workspace paths it works in. */
  tool(name: string, args: unknown): { kind: ToolKind; paths: string[] };
  /** The modifications a result names, read back (and the id that stands for them all). */
  writes(data: Record<string, unknown> | undefined): Promise<{ writes: Write[]; head?: string }>;
  /** The client shows notices (`session.notices`); otherwise they go as thought chunks. */
  notices: boolean;
}

/** What one translated event asks of the connection: updates in order, and writes to tell the editor about. */
export interface Translated {
  updates: SessionUpdate[];
  writes: Write[];
}

interface OpenCall {
  tool: string;
  title: string;
  kind: ToolKind;
  announced: boolean;
  output: string;
}

const cut = (s: string, keep: 'head' | 'tail' = 'head'): string => {
  if (s.length <= CONTENT_CHARS) return s;
  const dropped = `[${s.length - CONTENT_CHARS} characters not shown]`;
  return keep === 'tail' ? `${dropped}\n${s.slice(-CONTENT_CHARS)}` : `${s.slice(0, CONTENT_CHARS)}\n${dropped}`;
};

const oneLine = (s: string, max = 160): string => {
  const line = s.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

const textContent = (text: string): ToolCallContent => ({ type: 'content', content: { type: 'text', text } });

/** A plan's Markdown as ACP plan entries: its list items (a ticked box is done), else its first line. */
export function planEntries(markdown: string): PlanEntry[] {
  const items: PlanEntry[] = [];
  for (const line of markdown.split('\n')) {
    const m = /^ {0,3}(?:[-*+]|\d{1,3}[.)])\s+(?:\[([ xX])\]\s+)?(\S.*)$/.exec(line);
    if (m) items.push({ content: oneLine(m[2], 500), priority: 'medium', status: m[1] && m[1] !== ' ' ? 'completed' : 'pending' });
    if (items.length >= 50) break;
  }
  if (items.length) return items;
  const first = markdown.split('\n').find((l) => l.trim());
  return first ? [{ content: oneLine(first.replace(/^#+\s*/, ''), 500), priority: 'medium', status: 'pending' }] : [];
}

/** The meter as ACP's usage update: the context used of the window, and the session's cost when known. */
export function usageUpdate(u: UsageView): SessionUpdate {
  return {
    sessionUpdate: 'usage_update',
    used: u.conversation_tokens,
    size: u.context_window,
    ...(u.session.cost_usd !== undefined ? { cost: { amount: u.session.cost_usd, currency: 'USD' } } : {}),
  };
}

/** A kind said more exactly once the changes are known: every change a deletion, or a rename. */
export function refinedKind(kind: ToolKind, writes: Write[]): ToolKind {
  if (kind !== 'edit' || !writes.length) return kind;
  if (writes.some((w) => w.renamedFrom || w.renamedTo)) return 'move';
  if (writes.every((w) => w.operation === 'delete_file')) return 'delete';
  return kind;
}

export class UpdateTranslator {
  private readonly calls = new Map<string, OpenCall>();

  constructor(private readonly deps: TranslatorDeps) {}

  private say(text: string): SessionUpdate {
    return this.deps.notices ? { sessionUpdate: 'notice', severity: 'info', title: oneLine(text, 200), ...(text.length > 200 ? { description: text } : {}) } : { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: `${text}\n` } };
  }

  private locations(paths: string[], line?: number): ToolCallLocation[] {
    return paths.map((p) => ({ path: this.deps.clientPath(p), ...(line ? { line } : {}) }));
  }

  /** The streamed output of a call so far, as its content (the tail is what matters while it runs). */
  output(callId: string): SessionUpdate | null {
    const c = this.calls.get(callId);
    if (!c) return null;
    return { sessionUpdate: 'tool_call_update', toolCallId: callId, content: [textContent(cut(c.output, 'tail'))] };
  }

  /**
   * One event (live) or transcript entry (replay) as updates. `replay`: the person's own messages
   * are sent back too, and an error is part of the conversation rather than the prompt's answer.
   */
  async translate(e: ChatEvent | ChatTranscriptEntry, replay: boolean): Promise<Translated> {
    const none: Translated = { updates: [], writes: [] };
    const one = (u: SessionUpdate): Translated => ({ updates: [u], writes: [] });
    switch (e.type) {
      case 'user_message':
        return replay ? one({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: e.text } }) : none;
      case 'steer':
        return one({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: e.text } });
      case 'text_delta':
        return e.text ? one({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: e.text } }) : none;
      case 'reasoning_delta':
        return e.text ? one({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: e.text } }) : none;
      case 'tool_call_streaming': {
        const { kind } = this.deps.tool(e.tool, undefined);
        this.calls.set(e.call_id, { tool: e.tool, title: e.title, kind, announced: true, output: '' });
        return one({ sessionUpdate: 'tool_call', toolCallId: e.call_id, title: e.title, kind, status: 'pending', name: e.tool });
      }
      case 'tool_call_started': {
        const { kind, paths } = this.deps.tool(e.tool, e.args);
        const title = e.summary ? `${e.title}: ${oneLine(e.summary)}` : e.title;
        const known = this.calls.get(e.call_id);
        this.calls.set(e.call_id, { tool: e.tool, title, kind, announced: true, output: '' });
        const locations = this.locations(paths);
        const fields = { title, kind, status: 'in_progress' as const, locations, rawInput: e.args };
        return one(known ? { sessionUpdate: 'tool_call_update', toolCallId: e.call_id, ...fields } : { sessionUpdate: 'tool_call', toolCallId: e.call_id, name: e.tool, ...fields });
      }
      case 'tool_output': {
        const c = this.calls.get(e.call_id);
        if (!c) return none;
        c.output = (c.output + e.text).slice(-CONTENT_CHARS * 2);
        // Live output is sent by the session at its own pace (throttled); a replay sends it once.
        return replay ? one(this.output(e.call_id)!) : none;
      }
      case 'tool_call_finished':
        return this.finished(e);
      case 'plan': {
        const entries = planEntries(e.text);
        return { updates: entries.length ? [{ sessionUpdate: 'plan', entries, _meta: { loupe: { path: e.path } } }] : [], writes: [] };
      }
      case 'usage':
        return one(usageUpdate(e.usage));
      case 'notice':
        return one(this.say(e.text));
      case 'retry':
        return one(this.say(`The model request failed (${oneLine(e.reason)}); trying again in ${(e.delay_ms / 1000).toFixed(1)} s.`));
      case 'hook':
        // A hook that decided something, said where the chat shows it under its call.
        return one(this.say(`Hook ${e.event} ${e.decision} (${e.source}: ${oneLine(e.hook, 80)})${e.reason ? `: ${oneLine(e.reason, 300)}` : ''}`));
      case 'command_expanded':
        // The prompt was a command (or a skill by its name): what it became is what the model was sent.
        return one(this.say(`/${e.name} (${e.source === 'built-in' ? 'built in' : e.source === 'personal' ? 'your command' : "the repository's command"}) became:\n${cut(e.text, 'head')}`));
      case 'compacted':
        return one(this.say(`The conversation was compacted: ${e.removed_messages} older messages ${e.mode === 'summary' ? 'summarised' : 'dropped'}.`));
      case 'error':
        // Live, a failed request is the prompt's error answer and a stop is `cancelled`; a replay shows what was said.
        return replay && e.code !== 'ABORTED' ? one({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `\n\nError [${e.code}]: ${e.message}` } }) : none;
      default:
        return none;
    }
  }

  private async finished(e: Extract<ChatEvent | ChatTranscriptEntry, { type: 'tool_call_finished' }>): Promise<Translated> {
    const c = this.calls.get(e.call_id);
    this.calls.delete(e.call_id);
    const { writes, head } = await this.deps.writes(e.data).catch(() => ({ writes: [] as Write[], head: undefined }));
    const content: ToolCallContent[] = [];
    for (const w of writes) {
      if (w.opaque) continue;
      content.push({ type: 'diff', path: this.deps.clientPath(w.file), oldText: w.before, newText: w.after ?? '', _meta: { loupe: { modification_id: w.modificationId, operation: w.operation } } });
    }
    const opaque = writes.filter((w) => w.opaque).map((w) => w.file);
    const text = e.ok ? e.output : e.error ? `Error [${e.error.code}]: ${e.error.message}` : e.output;
    const shown = [text, opaque.length ? `Not shown as text (binary or large): ${opaque.join(', ')}` : ''].filter(Boolean).join('\n');
    if (shown) content.push(textContent(cut(shown, c?.kind === 'execute' ? 'tail' : 'head')));
    const kind = refinedKind(c?.kind ?? this.deps.tool(e.tool, undefined).kind, writes);
    const locations = writes.length ? this.locations([...new Set(writes.map((w) => w.file))], writes.length === 1 ? writes[0].line : undefined) : undefined;
    const rawOutput = { ok: e.ok, ...(e.data ? { data: e.data } : {}), ...(e.error ? { error: e.error } : {}) };
    const update: SessionUpdate = {
      sessionUpdate: 'tool_call_update',
      toolCallId: e.call_id,
      status: e.ok ? 'completed' : 'failed',
      kind,
      content,
      ...(locations ? { locations } : {}),
      rawOutput: JSON.stringify(rawOutput).length <= CONTENT_CHARS ? rawOutput : { ok: e.ok, ...(e.error ? { error: e.error } : {}) },
      ...(head ? { _meta: { loupe: { modification_id: head, modification_ids: writes.map((w) => w.modificationId) } } } : {}),
    };
    // A call the client never heard of (a transcript saved without its start): announced whole.
    const updates: SessionUpdate[] = c ? [update] : [{ sessionUpdate: 'tool_call', toolCallId: e.call_id, title: e.tool, name: e.tool, kind, status: update.status ?? 'completed' }, update];
    return { updates, writes };
  }
}
