// What a hosted agent's ACP updates say, as Loupe's chat reads it (docs/architecture.md, "Hosted
// agents"): the inverse of `loupe acp`'s translation. A tool call's kind becomes Loupe's effect and
// the permission kind its questions ask as; its content becomes the card's output and diffs; its
// stop reason the request's status. Pure functions: the runner keeps the state.
import type { PermissionOption, PromptResponse, ToolCall, ToolCallContent, ToolCallUpdate, ToolKind } from '@agentclientprotocol/sdk';
import type { ToolEffect } from '../../../shared/contract';
import type { RunStatus } from '../loop/events';
import type { PermissionQuery } from '../../services/permissions/ruleEngine';
import { unifiedDiff } from '../../services/modlog/unifiedDiff';
import path from 'node:path';

/** One tool call of the agent as it stands after the updates so far. */
export interface CallState {
  id: string;
  title: string;
  kind: ToolKind;
  status: 'pending' | 'in_progress' | 'completed' | 'failed';
  rawInput?: unknown;
  rawOutput?: unknown;
  locations: string[];
  content: ToolCallContent[];
}

export function newCall(u: ToolCall): CallState {
  return { id: u.toolCallId, title: u.title, kind: u.kind ?? 'other', status: u.status ?? 'pending', rawInput: u.rawInput, rawOutput: u.rawOutput, locations: (u.locations ?? []).map((l) => l.path), content: u.content ?? [] };
}

/** The call with an update's fields laid over it (only the fields the update carries). */
export function mergeCall(c: CallState, u: ToolCallUpdate): CallState {
  return {
    ...c,
    ...(u.title != null ? { title: u.title } : {}),
    ...(u.kind != null ? { kind: u.kind } : {}),
    ...(u.status != null ? { status: u.status } : {}),
    ...(u.rawInput !== undefined && !(isEmpty(u.rawInput) && !isEmpty(c.rawInput)) ? { rawInput: u.rawInput } : {}),
    ...(u.rawOutput !== undefined ? { rawOutput: u.rawOutput } : {}),
    ...(u.locations != null && u.locations.length ? { locations: u.locations.map((l) => l.path) } : {}),
    ...(u.content != null ? { content: u.content } : {}),
  };
}

const isEmpty = (v: unknown): boolean => v === null || v === undefined || (typeof v === 'object' && Object.keys(v as object).length === 0);

/** Loupe's effect for an ACP tool kind: what the card and the timeline call it. */
export function effectOf(kind: ToolKind): ToolEffect {
  if (kind === 'read' || kind === 'search' || kind === 'fetch' || kind === 'think' || kind === 'switch_mode') return 'read';
  if (kind === 'edit' || kind === 'delete' || kind === 'move') return 'write';
  return 'execute';
}

/** The call's one line: the command, the path, the URL, else its title. */
export function summaryOf(c: CallState, root: string): string {
  const input = (c.rawInput ?? {}) as Record<string, unknown>;
  if (typeof input.command === 'string') return input.command;
  if (typeof input.url === 'string') return input.url;
  if (c.locations[0]) return relTo(root, c.locations[0]);
  return c.title;
}

/** A path as the workspace names it when it lies inside, else as given. */
export function relTo(root: string, p: string): string {
  const abs = path.resolve(root, p);
  return abs === root ? '.' : abs.startsWith(root + path.sep) ? abs.slice(root.length + 1).split(path.sep).join('/') : p;
}

/** The text of the call's content blocks, joined: what the card shows as its output. */
export function outputOf(c: CallState): string {
  const parts: string[] = [];
  for (const b of c.content) {
    if (b.type === 'content' && b.content.type === 'text') parts.push(b.content.text);
    else if (b.type === 'terminal') parts.push(`(terminal ${b.terminalId})`);
  }
  if (!parts.length && c.rawOutput && typeof c.rawOutput === 'object' && typeof (c.rawOutput as { output?: unknown }).output === 'string') parts.push((c.rawOutput as { output: string }).output);
  return parts.join('\n');
}

/** The diffs the call's content shows, as one unified diff (workspace-relative names). */
export function diffOf(c: CallState, root: string): string | null {
  const out: string[] = [];
  for (const b of c.content) if (b.type === 'diff') out.push(unifiedDiff(relTo(root, b.path), b.oldText ?? null, b.newText));
  return out.length ? out.join('') : null;
}

/**
 * The question Loupe's rules are asked for the agent's permission request: an edit of the path it
 * names, a command line, a URL, a read. Null when it names nothing Loupe's rules speak of.
 */
export function queryOf(c: Pick<CallState, 'kind' | 'title' | 'rawInput' | 'locations' | 'content'>, root: string): PermissionQuery | null {
  const input = (c.rawInput ?? {}) as Record<string, unknown>;
  const diffPath = c.content.find((b): b is Extract<ToolCallContent, { type: 'diff' }> => b.type === 'diff')?.path;
  const where = c.locations[0] ?? diffPath ?? pathIn(input);
  switch (c.kind) {
    case 'edit':
    case 'delete':
    case 'move':
      return where ? { kind: 'edit', path: relTo(root, where) } : null;
    case 'read':
    case 'search':
      return where ? { kind: 'read', path: relTo(root, where) } : null;
    case 'fetch':
      return typeof input.url === 'string' ? { kind: 'webfetch', url: input.url } : null;
    case 'execute':
      return { kind: 'bash', command: typeof input.command === 'string' ? input.command : c.title };
    default:
      return typeof input.command === 'string' ? { kind: 'bash', command: input.command } : where ? { kind: 'edit', path: relTo(root, where) } : null;
  }
}

function pathIn(input: Record<string, unknown>): string | undefined {
  for (const k of ['filePath', 'file_path', 'path', 'filepath', 'absolute_path']) if (typeof input[k] === 'string') return input[k] as string;
  return undefined;
}

/** The agent's option of each kind Loupe answers with, if it offers one. */
export function optionFor(options: readonly PermissionOption[], want: 'allow' | 'reject'): PermissionOption | undefined {
  const kinds = want === 'allow' ? ['allow_once', 'allow_always'] : ['reject_once', 'reject_always'];
  for (const k of kinds) {
    const o = options.find((x) => x.kind === k);
    if (o) return o;
  }
  return undefined;
}

/** A request's status from the prompt's stop reason. */
export function statusOf(stop: PromptResponse['stopReason'], aborted: boolean): RunStatus {
  if (aborted || stop === 'cancelled') return 'aborted';
  if (stop === 'max_turn_requests') return 'turn_limit';
  if (stop === 'refusal') return 'error';
  return 'done';
}

/** The asking mode among the agent's modes: the entry's own, else one named for asking. */
export function askingMode(ids: readonly string[], wanted?: string): string | null {
  if (wanted) return ids.includes(wanted) ? wanted : null;
  for (const id of ['default', 'ask', 'read-only', 'build']) if (ids.includes(id)) return id;
  return null;
}
