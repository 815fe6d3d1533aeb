// The shape every agent tool shares: zod arguments in, {ok, output, data?, error?} out, and
// the facts about it that every caller reads instead of knowing tool names.
import type { z } from 'zod';
import type { ErrorDetails, ToolEffect } from '../../../shared/contract';
import type { ErrorCode } from '../../../shared/errors';
import type { PermissionKind } from '../../services/permissions/types';
import type { FileSession } from '../../services/files/readTracker';
import type { ModificationLog } from '../../services/modlog/modificationLog';
import type { CommandCapture } from '../../services/snapshots/commandCapture';
import type { PermissionGate } from '../../services/permissions/permissionGate';
import type { LookupAll } from '../../services/web/addressClass';
import type { EditCorrector } from '../edit/corrector';
import type { Logger } from '../../services/log/logger';
import type { LanguageServers } from '../../services/lsp/languageServers';
import type { ProcessManager } from '../../services/processes/processManager';
import type { SkillCatalog } from '../../services/skills/catalog';
import type { Subagents } from '../subagents/types';

export type { ToolEffect };

export interface ToolError {
  code: ErrorCode;
  message: string;
  details?: ErrorDetails;
  /** The message in words for the person, where `message` tells the model what to call or change. */
  for_person?: string;
}

export interface ToolResult {
  ok: boolean;
  /** What the model sees. */
  output: string;
  /**
   * What the person reads on the call's card (and `loupe run`, an export) where `output` speaks
   * to the model: the same facts without the words about its tools. "" when the error says it all.
   */
  for_person?: string;
  /** The structured result. */
  data?: Record<string, unknown>;
  error?: ToolError;
  /**
   * Images for the model (base64), summarised in `output` too: the loop sends them only to a
   * model that takes images. Never in events, logs or `data`.
   */
  images?: ToolImage[];
}

export interface ToolImage {
  mime_type: string;
  data: string;
}

/**
 * What the person's editor holds of a file, unsaved changes included: offered by a client that
 * shows the workspace in an editor (an ACP client's `fs/read_text_file`). `abs` is a realpath
 * inside the workspace, already allowed by the read rules; null: the editor cannot say, read the disk.
 */
export interface EditorBuffers {
  read(abs: string, signal: AbortSignal): Promise<string | null>;
}

export interface ToolContext {
  /** Realpath of the workspace root. */
  root: string;
  /** Read tracking for this chat or MCP connection. */
  session: FileSession;
  modlog: ModificationLog;
  /** Records what a command writes as modifications of the request. */
  captures: CommandCapture;
  signal: AbortSignal;
  /** The LLM corrector for edit_file; null when no model is configured. */
  corrector: EditCorrector | null;
  logger: Logger;
  /** The workspace's gate: its rules, and whoever answers its questions (the composition root's). */
  permissions: PermissionGate;
  /** The request this context serves, when an agent loop runs it: approvals name it, and writes are recorded under it (correlationOf). */
  correlationId?: string;
  /** The model's tool call this context serves, when an agent loop runs it (a subagent's card sits under it). */
  callId?: string;
  /** Resolves host names for webfetch and the sandbox's proxy; absent: the system resolver. */
  lookup?: LookupAll;
  /** The workspace's language servers: what each write introduces; absent: none run here. */
  lsp?: LanguageServers;
  /** The workspace's background processes; absent where a caller gives tools no workspace services. */
  processes?: ProcessManager;
  /** The request's children (subagents); absent where no runner can start any (`loupe mcp`, a child at the depth limit). */
  subagents?: Subagents;
  /** The person's editor's view of files (unsaved changes); absent: the disk is all there is. */
  buffers?: EditorBuffers;
  /** The skills in reach (the skill tool, and reading a personal skill's folder); absent: none. */
  skills?: SkillCatalog;
}

/**
 * What kind of action a call is, for clients that draw it (an ACP client's icon): the names ACP
 * gives. `delete` and `move` are said of a call once its changes show it deleted or moved files.
 */
export type ToolKind = 'read' | 'edit' | 'delete' | 'move' | 'search' | 'execute' | 'fetch' | 'other';

/**
 * What a tool says about itself, read by the loop (which calls may run together), the chat's
 * cards, `loupe run`'s lines, `loupe mcp`'s annotations and the README's tool list.
 */
export interface ToolFacts {
  name: string;
  /** A few words for people: the card's and the MCP client's label. */
  title: string;
  description: string;
  /** read: changes nothing; write: changes workspace files; execute: runs a process. */
  effect: ToolEffect;
  /** The permission kind it asks for before acting; null: it never asks. */
  permission: PermissionKind | null;
  /** Its changes follow the request's correlation id (the loop's, from the context; else its `correlation_id` argument). */
  correlated: boolean;
  /** Calling it again with the same arguments changes nothing more. */
  idempotent: boolean;
  /** It reaches beyond the workspace (the network, any program). */
  openWorld: boolean;
  /** What kind of action it is, where its effect does not say it: a search, a fetch (kindOf). */
  kind?: ToolKind;
  /**
   * It starts or follows child sessions (subagents), whose own narrowed gate judges each of their
   * calls: offered only where the runner gives its tools children (`ToolContext.subagents`), and
   * never refused by plan mode itself (a child of a plan-mode request only reads).
   */
  delegates?: boolean;
  /**
   * What the system prompt adds about using it well, beyond its description. Never names another
   * tool: the prompt lists only the tools that exist.
   */
  guidance?: string;
}

export interface Tool<S extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> extends ToolFacts {
  schema: S;
  /**
   * The arguments' JSON Schema as its owner published it, when it is not derived from `schema`
   * (an MCP server's tool: `schema` then only checks for an object, and the server checks the rest).
   */
  jsonSchema?: Record<string, unknown>;
  /** The shape of `data` in its result (zod); MCP clients get it as the tool's outputSchema. */
  outputSchema: O;
  /** One line saying what this call does: the path, the command, the pattern, the URL. */
  summary(args: z.output<S>): string;
  /** The workspace paths (files or folders, as given) this call works in: their folders' instructions apply. */
  paths?(args: z.output<S>): (string | undefined)[];
  /** How hooks written for Claude Code see this tool (its name there and input shape); absent: by Loupe's name and arguments. */
  claudeCode?: ClaudeCodeShape<z.output<S>>;
  run(args: z.output<S>, ctx: ToolContext): Promise<ToolResult>;
}

/**
 * A tool as Claude Code's hooks know it (docs/architecture.md, "Hooks"): a hook from a Claude
 * Code settings file matches `name` and reads `input(args)` (paths absolute, as Claude Code gives
 * them); its `updatedInput` comes back through `args`.
 */
export interface ClaudeCodeShape<A> {
  name: string;
  input(args: A, root: string): Record<string, unknown>;
  /** The tool's arguments from a hook's rewritten input (checked by the tool's schema afterwards); `was`: the call's own. */
  args(input: Record<string, unknown>, was: A, root: string): Record<string, unknown>;
}

/**
 * Tools known by name only: a name with this prefix that no listed tool has belongs to the family
 * (an MCP server's tools while it lists none: down, starting, waiting for the person). Never
 * listed to the model; the registry asks it for the tool when such a name is called.
 */
export interface ToolFamily {
  prefix: string;
  tool(name: string): Tool;
}

/**
 * The request a call's changes are recorded under: the agent loop's (it travels in the context,
 * never added to anyone's arguments), else the caller's `correlation_id` argument (`loupe mcp`).
 */
export const correlationOf = (ctx: ToolContext, args: { correlation_id?: string }): string | undefined => ctx.correlationId || args.correlation_id;

/** Keeps the argument type of `run` and `summary` tied to the schema. */
export const defineTool = <S extends z.ZodType, O extends z.ZodType>(tool: Tool<S, O>): Tool<S, O> => tool;

/** The facts of a tool that reads workspace files under the read rules and changes nothing. */
export const READS_WORKSPACE = { effect: 'read', permission: 'read', correlated: false, idempotent: true, openWorld: false } as const satisfies Partial<ToolFacts>;

/** The kind of a tool's calls: its own `kind` fact, else what its effect says. */
export const kindOf = (tool: Pick<ToolFacts, 'effect' | 'kind'>): ToolKind => tool.kind ?? (tool.effect === 'read' ? 'read' : tool.effect === 'write' ? 'edit' : 'execute');

/**
 * Calls that change nothing and reach nothing outside can run together; so can calls that start
 * or follow children, each of which works through its own gate, under the per-file locks.
 */
export const runsConcurrently = (tool: ToolFacts): boolean => (tool.effect === 'read' && !tool.openWorld) || !!tool.delegates;

export const success = (output: string, data?: Record<string, unknown>): ToolResult => ({ ok: true, output, ...(data ? { data } : {}) });
