// What the agent tools share: a child's outcome as the model reads it and as data, and the
// refusal where no runner gives tools children.
import { z } from 'zod';
import { LoupeError } from '../../errors';
import type { ChildOutcome, Subagents } from '../subagents/types';
import type { ToolContext } from './types';

/** The request's children, or a refusal saying why there are none here. */
export function childrenOf(ctx: ToolContext): Subagents {
  if (!ctx.subagents) throw new LoupeError('INVALID_ARGUMENT', 'Subagents cannot be started here (no agent runs this call, or this agent is already as deep as subagents may go). Do the task yourself.');
  return ctx.subagents;
}

export const AGENT_ID_ARG = z.string().min(1).describe('The agent id its start returned.');

export const outcomeSchema = z.looseObject({
  agent_id: z.string(),
  agent_type: z.string(),
  description: z.string(),
  status: z.enum(['running', 'done', 'failed', 'stopped']),
  text: z.string().describe("The child's final message (or what it had said when it stopped)."),
  turns: z.number().int(),
  tokens: z.number().int(),
  cost_usd: z.number().optional(),
  files: z.array(z.string()).describe('Files its modifications touched.'),
  stopped_by: z.enum(['request', 'person', 'agent', 'turns', 'budget', 'session_budget', 'closed']).optional(),
  reason: z.string().optional(),
  worktree: z.string().optional().describe('An isolated child: the worktree its changes wait in, to be reviewed and applied.'),
});

/** The facts of a tool that follows one of a request's children by its id (waits for it, stops it): it changes no file and asks nothing. */
export const FOLLOWS_CHILD = {
  effect: 'read',
  permission: null,
  correlated: false,
  idempotent: true,
  openWorld: false,
  delegates: true,
  summary: (args: { id: string }) => args.id,
  outputSchema: outcomeSchema,
} as const;

const n = (x: number) => x.toLocaleString('en-US');

/** The outcome as the model reads it: the figures first, then the child's own words. */
export function describeOutcome(o: ChildOutcome): string {
  const head = `Agent ${o.agent_id} (${o.agent_type}: ${o.description}) ${o.status === 'running' ? 'is still running' : o.status}${o.turns ? ` after ${o.turns} turn${o.turns === 1 ? '' : 's'}` : ''}, ${n(o.tokens)} tokens${o.cost_usd !== undefined ? `, $${o.cost_usd.toFixed(4)}` : ''}.`;
  const lines = [head];
  if (o.reason) lines.push(o.reason);
  if (o.files.length) lines.push(`Files it changed${o.worktree ? ` in worktree ${o.worktree} (not in this folder until the person applies them)` : ''}: ${o.files.join(', ')}`);
  else if (o.status !== 'running') lines.push('It changed no file.');
  if (o.text.trim()) lines.push('', o.text.trim());
  return lines.join('\n');
}

export const outcomeResult = (o: ChildOutcome) => ({
  ok: o.status === 'done' || o.status === 'running',
  output: describeOutcome(o),
  data: { ...o },
  ...(o.status === 'failed' || o.status === 'stopped' ? { error: { code: o.status === 'stopped' ? ('ABORTED' as const) : ('LLM_ERROR' as const), message: o.reason ?? `The agent ${o.status}.` } } : {}),
});
