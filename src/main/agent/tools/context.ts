// What tools run with: the workspace's services (built once by the composition root) plus one
// chat's or connection's read tracking and edit corrector. Never a log or a gate of its own.
import { FileSession } from '../../services/files/readTracker';
import { newSessionId } from '../../services/sessions/sessionStore';
import type { WorkspaceServices } from '../../workspace/compose';
import { LlmEditCorrector, type EditCorrector } from '../edit/corrector';
import type { Logger } from '../../services/log/logger';
import { llmConfigFromEnv } from '../llm/config';
import { createJsonChat } from '../llm/jsonChat';
import type { ToolContext } from './types';

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

export function createToolContext(services: WorkspaceServices, opts: ToolContextOptions = {}): ToolContext {
  const logger = opts.logger ?? services.logger;
  return services.toolContext({
    session: opts.session ?? new FileSession(newSessionId()),
    corrector: opts.corrector === undefined ? correctorFromEnv(logger) : opts.corrector,
    logger,
    signal: opts.signal,
  });
}
