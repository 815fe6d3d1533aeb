// The shape every agent tool shares: zod arguments in, {ok, output, data?, error?} out.
import type { z } from 'zod';
import type { ErrorDetails } from '../../../shared/contract';
import type { ErrorCode } from '../../../shared/errors';
import type { FileSession } from '../../services/files/readTracker';
import type { ModificationLog } from '../../services/modlog/modificationLog';
import type { PermissionGate } from '../../services/permissions/permissionGate';
import type { LookupAll } from '../../services/web/addressClass';
import type { EditCorrector } from '../edit/corrector';
import type { Logger } from '../edit/logger';

export interface ToolError {
  code: ErrorCode;
  message: string;
  details?: ErrorDetails;
}

export interface ToolResult {
  ok: boolean;
  /** What the model sees. */
  output: string;
  /** The structured result. */
  data?: Record<string, unknown>;
  error?: ToolError;
}

export interface ToolContext {
  /** Realpath of the workspace root. */
  root: string;
  /** Read tracking for this chat or MCP connection. */
  session: FileSession;
  modlog: ModificationLog;
  signal: AbortSignal;
  /** The LLM corrector for edit_file; null when no model is configured. */
  corrector: EditCorrector | null;
  logger: Logger;
  /** The gate that can ask a person; absent: project rules and defaults, asks denied. */
  permissions?: PermissionGate;
  /** The request this context serves, when an agent loop runs it: approvals name it. */
  correlationId?: string;
  /** Resolves host names for webfetch; absent: the system resolver. */
  lookup?: LookupAll;
}

export interface Tool<S extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  schema: S;
  run(args: z.output<S>, ctx: ToolContext): Promise<ToolResult>;
}

/** Keeps the argument type of `run` tied to the schema. */
export const defineTool = <S extends z.ZodType>(tool: Tool<S>): Tool<S> => tool;

export const success = (output: string, data?: Record<string, unknown>): ToolResult => ({ ok: true, output, ...(data ? { data } : {}) });
