// How `loupe mcp` asks: an MCP elicitation when the client supports it, else the
// queue denies at once with the rule that would allow the call (never a hang).
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { nullLogger, type Logger } from '../services/log/logger';
import { ApprovalQueue, type ApprovalAnswer, type ApprovalRequest } from '../services/permissions/approvalQueue';
import { PermissionGate } from '../services/permissions/permissionGate';
import { ProjectConfig } from '../services/permissions/projectConfig';
import { PermissionEngine } from '../services/permissions/ruleEngine';
import { defaultConfigDir } from '../services/settings/configDir';
import { UserSettings } from '../services/settings/userSettings';

const DECISIONS = ['allow_once', 'allow_always', 'deny'] as const;
const MAX_DIFF_CHARS = 20_000;

export function elicitationMessage(req: ApprovalRequest): string {
  const always = req.always.length ? ` "Allow always" adds ${req.always.map((r) => JSON.stringify(r)).join(' and ')} to .loupe/config.json.` : '';
  const why = req.rule ? `the rule ${req.rule}` : 'no rule matches';
  // An edit's card is its diff: the person answers about exactly what would be written.
  const diff = req.diff ? `\n\n${req.diff.length > MAX_DIFF_CHARS ? `${req.diff.slice(0, MAX_DIFF_CHARS)}\n… (${req.diff.length - MAX_DIFF_CHARS} more characters)` : req.diff}` : '';
  return `Loupe's ${req.tool} tool wants to ${req.kind === 'edit' ? '' : 'run: '}${req.summary}\nWhy it asks: ${req.reason} (${why}).${always}${diff}`;
}

export function answerFromElicitation(result: { action: string; content?: Record<string, unknown> }): ApprovalAnswer {
  if (result.action !== 'accept') return { answer: 'deny', message: `the user chose ${result.action}` };
  const decision = result.content?.decision;
  const message = typeof result.content?.message === 'string' && result.content.message ? result.content.message : undefined;
  if (decision === 'allow_once') return { answer: 'once' };
  if (decision === 'allow_always') return { answer: 'always' };
  return { answer: 'deny', message };
}

/** One gate per MCP connection: project rules, defaults, session answers, and the client to ask. */
export function mcpPermissionGate(server: Server, root: string, logger: Logger = nullLogger): PermissionGate {
  const user = new UserSettings(defaultConfigDir());
  const project = new ProjectConfig(root, user);
  const queue = new ApprovalQueue('deny');
  queue.setResponder(async (req, signal) => {
    if (!server.getClientCapabilities()?.elicitation) return null;
    const result = await server.elicitInput(
      {
        message: elicitationMessage(req),
        requestedSchema: {
          type: 'object',
          properties: {
            decision: { type: 'string', title: 'Decision', enum: [...DECISIONS], enumNames: ['Allow once', 'Allow always', 'Deny'] },
            message: { type: 'string', title: 'Message for the agent (when denying)' },
          },
          required: ['decision'],
        },
      },
      { signal },
    );
    return answerFromElicitation(result);
  });
  return new PermissionGate(new PermissionEngine({ root, project, userRules: user.permissions }), queue, {
    persist: (rules) => project.addRules(rules),
    onWarning: (message) => logger.warn('config.problem', { root, message }),
  });
}
