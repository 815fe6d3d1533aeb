import type { McpServerStatus } from '../../../shared/contract';
import { LoupeError } from '../../errors';

/**
 * The server of a tool is not running now (starting, failed, restarting, waiting for approval or
 * sign-in): its status (the settings' vocabulary) and the end of its stderr say why.
 */
export class McpServerUnavailableError extends LoupeError {
  constructor(server: string, why: string, facts: { status?: McpServerStatus; stderr?: string[] } = {}) {
    const status = facts.status ? ` (${facts.status})` : '';
    super('MCP_SERVER_UNAVAILABLE', `The MCP server "${server}" is not available${status}: ${why}`, {
      server,
      ...(facts.status ? { status: facts.status } : {}),
      ...(facts.stderr?.length ? { stderr: facts.stderr } : {}),
    });
  }
}

/** The server answered the call with an error of its own. */
export class McpToolError extends LoupeError {
  constructor(server: string, tool: string, message: string) {
    super('MCP_TOOL_ERROR', `${server}/${tool} failed: ${message}`, { server, tool });
  }
}

export class McpTimeoutError extends LoupeError {
  constructor(server: string, tool: string, ms: number) {
    super('TIMEOUT', `${server}/${tool} did not answer within ${Math.round(ms / 1000)} s; the call was cancelled. Raise mcpServers.${server}.timeout_ms if it needs longer.`, { server, tool, timeout_ms: ms });
  }
}
