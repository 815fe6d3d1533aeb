import { LoupeError } from '../../errors';

/** A hosted agent cannot run now: not configured or enabled, its program missing, not approved, or it failed to start or answer. */
export class AgentUnavailableError extends LoupeError {
  constructor(agent: string, why: string) {
    super('AGENT_UNAVAILABLE', `The agent "${agent}" is not available: ${why}`, { agent });
  }
}
