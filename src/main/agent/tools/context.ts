// Builds what tools run with: one workspace, one session, one modification log.
import { FileSession } from '../../services/files/readTracker';
import { ModificationLog } from '../../services/modlog/modificationLog';
import { LlmEditCorrector, type EditCorrector } from '../edit/corrector';
import { nullLogger, type Logger } from '../../services/log/logger';
import { llmConfigFromEnv } from '../llm/config';
import { createJsonChat } from '../llm/jsonChat';
import { newSessionId } from '../../services/sessions/sessionStore';
import type { ToolContext } from './types';

export { newSessionId };

/** The edit corrector on the agent's model, or null when none is configured (deterministic steps only). */
export function correctorFromEnv(logger: Logger, env: NodeJS.ProcessEnv = process.env): EditCorrector | null {
  const config = llmConfigFromEnv(env);
  return config ? new LlmEditCorrector(createJsonChat(config), logger) : null;
}

export interface ToolContextOptions {
  root: string;
  modlog?: ModificationLog;
  session?: FileSession;
  corrector?: EditCorrector | null;
  logger?: Logger;
  signal?: AbortSignal;
}

export function createToolContext(opts: ToolContextOptions): ToolContext {
  const logger = opts.logger ?? nullLogger;
  return {
    root: opts.root,
    session: opts.session ?? new FileSession(newSessionId()),
    modlog: opts.modlog ?? new ModificationLog(opts.root),
    signal: opts.signal ?? new AbortController().signal,
    corrector: opts.corrector === undefined ? correctorFromEnv(logger) : opts.corrector,
    logger,
  };
}
