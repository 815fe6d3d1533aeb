// How `loupe mcp` asks: an MCP elicitation when the client supports it, else the
// queue denies at once with the rule that would allow the call (never a hang).
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { ApprovalAnswer, ApprovalRequest } from '../services/permissions/approvalQueue';
import type { Asker } from '../workspace/compose';

const DECISIONS = ['allow_once', 'allow_always', 'deny'] as const;
const MAX_DIFF_CHARS = 20_000;

export function elicitationMessage(req: ApprovalRequest): string {
  const always = req.always.length ? ` "Allow always" adds ${req.always.map((r) => JSON.stringify(r)).join(' and ')} to .loupe/config.json.` : '';
  const why = req.rule ? `the rule ${req.rule}` : 'no rule matches';
  // An edit's card is its diff: the person answers about exactly what would be written.
  const cut = (text: string) => (text.length > MAX_DIFF_CHARS ? `${text.slice(0, MAX_DIFF_CHARS)}\n… (${text.length - MAX_DIFF_CHARS} more characters)` : text);
  const more = [req.details, req.diff].filter((t): t is string => !!t).map((t) => `\n\n${cut(t)}`).join('');
  const risk = req.risk?.length ? `\nRISKY: ${req.risk.join('; ')}.` : '';
  const background = req.background ? '\nIt keeps running in the background after this call.' : '';
  return `Loupe's ${req.tool} tool wants to ${req.kind === 'edit' ? '' : 'run: '}${req.summary}\nWhy it asks: ${req.reason} (${why}).${risk}${background}${always}${more}`;
}

export function answerFromElicitation(result: { action: string; content?: Record<string, unknown> }): ApprovalAnswer {
  if (result.action !== 'accept') return { answer: 'deny', message: `the user chose ${result.action}` };
  const decision = result.content?.decision;
  const message = typeof result.content?.message === 'string' && result.content.message ? result.content.message : undefined;
  if (decision === 'allow_once') return { answer: 'once' };
  if (decision === 'allow_always') return { answer: 'always' };
  return { answer: 'deny', message };
}

/** The connected client answers, through elicitation; a client without it: every ask denied. */
export function elicitationAsker(server: Server): Asker {
  return {
    kind: 'responder',
    respond: async (req, signal) => {
    if (!server.getClientCapabilities()?.elicitation) return null;
    const result = await server.elicitInput(
      {
        message: elicitationMessage(req),
        requestedSchema: {
          type: 'object',
          properties: {
            // Accepting with the defaults (a client that applies them, another Loupe's card) allows once.
            // A risky call's default is Deny: accepting without reading never lets it through.
            decision: { type: 'string', title: 'Decision', enum: [...DECISIONS], enumNames: ['Allow once', 'Allow always', 'Deny'], default: req.risk?.length ? 'deny' : 'allow_once' },
            message: { type: 'string', title: 'Message for the agent (when denying)' },
          },
          required: ['decision'],
        },
      },
      { signal },
    );
    return answerFromElicitation(result);
    },
  };
}
