// What tools run with: the workspace's services (built once by the composition root) plus one
// chat's or connection's read tracking and edit corrector. Never a log or a gate of its own.
import { FileSession } from '../../services/files/readTracker';
import { newSessionId } from '../../services/sessions/sessionStore';
import type { WorkspaceServices } from '../../services/workspaceServices';
import { LlmEditCorrector, type EditCorrector } from '../edit/corrector';
import type { Logger } from '../../services/log/logger';
import { llmConfigFromEnv } from '../llm/config';
import { createJsonChat } from '../llm/jsonChat';
import type { EditorBuffers, ToolContext } from './types';

export { newSessionId };

/** The edit corrector on the agent's model, or null when none is configured (deterministic steps only). */
export function correctorFromEnv(logger: Logger, env: NodeJS.ProcessEnv = process.env): EditCorrector | null {
  const config = llmConfigFromEnv(env);
  return config ? new LlmEditCorrector(createJsonChat(config), logger) : null;
}

export interface ToolContextOptions {
  session?: FileSession;
  /** Absent: the model named by the environment, if any. */
  corrector?: EditCorrector | null;
  logger?: Logger;
  signal?: AbortSignal;
}

export interface ToolContextRequest {
  session: FileSession;
  corrector: EditCorrector | null;
  signal?: AbortSignal;
  /** Another logger for this context (a test's recorder); default the workspace's. */
  logger?: Logger;
  /** The person's editor's copy of files, where a client offers it. */
  buffers?: EditorBuffers;
}

/** What a tool runs with: this folder's log and gate (which reads the config), for one chat or connection. */
export function toolContextOf(services: WorkspaceServices, req: ToolContextRequest): ToolContext {
  return {
    root: services.root,
    session: req.session,
    modlog: services.modlog,
    captures: services.captures,
    permissions: services.permissions,
    signal: req.signal ?? new AbortController().signal,
    corrector: req.corrector,
    logger: req.logger ?? services.logger,
    processes: services.processes,
    lsp: services.lsp,
    ...(req.buffers ? { buffers: req.buffers } : {}),
    skills: services.skills,
  };
}

export function createToolContext(services: WorkspaceServices, opts: ToolContextOptions = {}): ToolContext {
  const logger = opts.logger ?? services.logger;
  return toolContextOf(services, {
    session: opts.session ?? new FileSession(newSessionId()),
    corrector: opts.corrector === undefined ? correctorFromEnv(logger) : opts.corrector,
    logger,
    signal: opts.signal,
  });
}
