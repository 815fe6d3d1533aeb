// Edit and resend (docs/architecture.md, "Steering a conversation"): editing an earlier message
// forks the conversation there. The record holds the active branch as it always did (messages,
// entries, requests) and keeps every other branch whole beside it, so switching back restores
// exactly what was shown and what the model had been told. A branch is stored whole rather than
// as a diff: a fork of a fork then needs no tree, at the cost of repeating the shared beginning.
import type { ChatTranscriptEntry, ForkView, UsageView } from '../../shared/contract';
import { InvalidArgumentError } from '../errors';
import type { ChatMessage } from '../agent/llm/types';
import type { SessionRecord, SessionRequest } from '../services/sessions/sessionStore';

export interface BranchRecord {
  id: string;
  messages: ChatMessage[];
  entries: ChatTranscriptEntry[];
  requests: SessionRequest[];
}

/** A saved chat: the model's messages, what the chat showed of them, and the other branches. */
export type ChatRecord = SessionRecord<ChatMessage> & {
  /** Notes for the model's next request that the log cannot derive (a switch to another branch). */
  pending_notes?: string[];
  entries?: ChatTranscriptEntry[];
  branch_id?: string;
  branches?: BranchRecord[];
  usage?: { session?: unknown; last?: UsageView };
  /** A subagent's session: what it is and how deep (its parent is `parent_session_id`). */
  agent?: { type: string; description: string; depth: number };
  /** Tokens this session's subagents spent, over its life (their budget is the session's). */
  subagent_tokens?: number;
};

const FIRST_BRANCH = 'br-1';
const branchNumber = (id: string) => Number(/^br-(\d+)$/.exec(id)?.[1] ?? 0);

/** Where the request's prompt sits in the messages: its recorded index, else the prompt found by its text. */
function messageIndex(record: ChatRecord, at: number): number {
  const req = record.requests[at];
  const i = req.message_index;
  if (i !== undefined && record.messages[i]?.role === 'user') return i;
  // Saved before indexes were kept: the prompt with this text, counting earlier requests with the same one.
  const same = record.requests.slice(0, at).filter((r) => r.prompt === req.prompt).length;
  let seen = 0;
  for (let k = 0; k < record.messages.length; k++) {
    const m = record.messages[k];
    if (m.role === 'user' && typeof m.content === 'string' && m.content.startsWith(req.prompt) && seen++ === same) return k;
  }
  throw new InvalidArgumentError('This message is no longer in the conversation the model sees (it was compacted away), so the conversation cannot be forked there. Edit a later message.');
}

/**
 * Forks before the request `correlationId`: the active branch is kept as it is, and the active
 * conversation becomes what came before that request. The caller then sends the edited message.
 */
export function forkAt(record: ChatRecord, correlationId: string, entries: ChatTranscriptEntry[]): void {
  const at = record.requests.findIndex((r) => r.correlation_id === correlationId);
  if (at === -1) throw new InvalidArgumentError(`No finished request ${correlationId} in this session.`);
  const cut = messageIndex(record, at);
  const entryCut = entries.findIndex((e) => e.type === 'user_message' && e.correlation_id === correlationId);
  const branches = (record.branches ??= []);
  const current = record.branch_id ?? FIRST_BRANCH;
  branches.push({ id: current, messages: record.messages, entries, requests: record.requests });
  record.branch_id = `br-${Math.max(branchNumber(current), ...branches.map((b) => branchNumber(b.id))) + 1}`;
  record.messages = record.messages.slice(0, cut);
  record.entries = entryCut === -1 ? [] : entries.slice(0, entryCut);
  record.requests = record.requests.slice(0, at);
}

/** Makes `branchId` the active branch; the one that was active is kept. */
export function switchTo(record: ChatRecord, branchId: string, entries: ChatTranscriptEntry[]): void {
  const branches = record.branches ?? [];
  const at = branches.findIndex((b) => b.id === branchId);
  if (at === -1) throw new InvalidArgumentError(`No branch ${branchId} in this session.`);
  const next = branches[at];
  branches[at] = { id: record.branch_id ?? FIRST_BRANCH, messages: record.messages, entries, requests: record.requests };
  record.branch_id = next.id;
  record.messages = next.messages;
  record.entries = next.entries;
  record.requests = next.requests;
}

const label = (r: SessionRequest | undefined) => {
  const line = (r?.prompt ?? '').trim().split('\n')[0].replace(/\s+/g, ' ');
  return line.length > 60 ? `${line.slice(0, 57)}…` : line;
};

/**
 * Where the active conversation has alternatives: at each request where another branch went
 * another way, that request's correlation id and every branch there (the active one marked).
 */
export function forksOf(record: ChatRecord): ForkView[] {
  const active = { id: record.branch_id ?? FIRST_BRANCH, requests: record.requests };
  const forks = new Map<string, ForkView>();
  for (const b of record.branches ?? []) {
    let k = 0;
    while (k < active.requests.length && k < b.requests.length && active.requests[k].correlation_id === b.requests[k].correlation_id) k++;
    const here = active.requests[k];
    if (!here) continue;
    const fork = forks.get(here.correlation_id) ?? { correlation_id: here.correlation_id, branches: [{ id: active.id, label: label(here), current: true }] };
    fork.branches.push({ id: b.id, label: label(b.requests[k]) || '(not sent yet)', current: false });
    forks.set(here.correlation_id, fork);
  }
  for (const f of forks.values()) f.branches.sort((a, b) => branchNumber(a.id) - branchNumber(b.id));
  return [...forks.values()];
}

/**
 * The branches of a loaded session file, those whose shape can be used (a session file may come
 * with a clone); their entries are checked when one is shown.
 */
export function checkedBranches(value: unknown): BranchRecord[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const ok = (b: unknown): b is BranchRecord => {
    const r = b as Partial<BranchRecord> | null;
    return !!r && typeof r.id === 'string' && /^br-\d{1,9}$/.test(r.id) && Array.isArray(r.messages) && Array.isArray(r.entries) && Array.isArray(r.requests) && r.requests.every((q) => typeof q?.correlation_id === 'string' && typeof q.prompt === 'string');
  };
  return value.filter(ok);
}

/** Compaction replaced the first `removed` messages with one: the recorded prompt positions follow. */
export function shiftIndexes(requests: SessionRequest[], removed: number): void {
  for (const r of requests) {
    if (r.message_index === undefined) continue;
    if (r.message_index >= removed) r.message_index -= removed - 1;
    else delete r.message_index;
  }
}
