// What one hook's run says, read by Claude Code's contract (docs/architecture.md, "Hooks"):
// exit 0 with JSON on stdout is read field by field (plain text is context for UserPromptSubmit
// and SessionStart); exit 2 blocks where the event can be blocked, its stderr the reason; any
// other exit code is a warning for the person and the work goes on. Loupe adds one rule: a hook
// that timed out, was killed or could not start is an `error`, never a silent yes (the caller
// turns a PreToolUse error into a question for the person).
import type { HookEvent } from '../config/hooksConfig';
import { firstLine, type RawRun } from './runHook';

/**
 * allow | deny | ask: a PreToolUse permission decision. block: the event's action is stopped
 * (a prompt, a stop) or the model is told after a tool (PostToolUse). context: it only added
 * context for the model. warn: a non-zero exit (or exit 2 where nothing can be blocked). error:
 * it timed out, was killed or could not start. none: it ran and said nothing.
 */
export type HookDecision = 'allow' | 'deny' | 'ask' | 'block' | 'context' | 'warn' | 'error' | 'none';

export interface HookAnswer {
  decision: HookDecision;
  /** The reason for the model (deny, block), the person (ask, warn), or what went wrong (error). */
  reason?: string;
  /** PreToolUse: the tool's input as the hook rewrote it (in its dialect). */
  updatedInput?: Record<string, unknown>;
  /** Text the model is given besides (additionalContext, or plain stdout where that is context). */
  context?: string;
  /** `continue: false`: the agent stops after this, saying `stopReason` to the person. */
  stop?: string;
  /** `systemMessage`: a line for the person. */
  message?: string;
}

/** Events whose exit 2 stops what they are about (the rest only show stderr to the person). */
const BLOCKING: ReadonlySet<HookEvent> = new Set(['PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'UserPromptSubmit', 'Stop', 'SubagentStop']);
/** Events whose plain stdout on exit 0 is context for the model. */
const PLAIN_CONTEXT: ReadonlySet<HookEvent> = new Set(['UserPromptSubmit', 'SessionStart', 'SubagentStart']);

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v : undefined);
const obj = (v: unknown): Record<string, unknown> | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

function parseJson(stdout: string): Record<string, unknown> | undefined {
  const t = stdout.trim();
  if (!t.startsWith('{')) return undefined;
  try {
    return obj(JSON.parse(t));
  } catch {
    return undefined;
  }
}

export function interpret(event: HookEvent, run: RawRun): HookAnswer {
  if (run.failure) return { decision: 'error', reason: run.failure.message };
  if (run.exitCode === 2) {
    const said = run.stderr.trim() || 'the hook exited with code 2 and gave no reason';
    return BLOCKING.has(event) ? { decision: event === 'PreToolUse' ? 'deny' : 'block', reason: said } : { decision: 'warn', reason: said };
  }
  if (run.exitCode !== 0) return { decision: 'warn', reason: `exited with code ${run.exitCode}${firstLine(run.stderr) ? `: ${firstLine(run.stderr)}` : ''}` };
  const json = parseJson(run.stdout);
  if (!json) {
    const text = run.stdout.trim();
    return PLAIN_CONTEXT.has(event) && text ? { decision: 'context', context: text } : { decision: 'none' };
  }
  return fromJson(event, json);
}

function fromJson(event: HookEvent, json: Record<string, unknown>): HookAnswer {
  const specific = obj(json.hookSpecificOutput);
  const common: Pick<HookAnswer, 'stop' | 'message' | 'context'> = {
    ...(json.continue === false ? { stop: str(json.stopReason) ?? 'a hook asked to stop' } : {}),
    ...(str(json.systemMessage) ? { message: str(json.systemMessage) } : {}),
    ...(str(specific?.additionalContext) ? { context: str(specific?.additionalContext) } : {}),
  };
  const reason = str(json.reason);
  if (event === 'PreToolUse') {
    // The deprecated top-level `decision` ("approve" | "block") still means allow | deny.
    const legacy = json.decision === 'approve' ? 'allow' : json.decision === 'block' ? 'deny' : undefined;
    const said = specific?.permissionDecision;
    const decision = said === 'allow' || said === 'deny' || said === 'ask' ? said : legacy;
    const updated = obj(specific?.updatedInput);
    const why = str(specific?.permissionDecisionReason) ?? reason;
    if (decision) return { ...common, decision, ...(why ? { reason: why } : decision === 'deny' ? { reason: 'a hook denied it and gave no reason' } : {}), ...(updated && decision !== 'deny' ? { updatedInput: updated } : {}) };
    if (updated) return { ...common, decision: 'none', updatedInput: updated };
  } else if (json.decision === 'block' && BLOCKING.has(event)) {
    return { ...common, decision: 'block', reason: reason ?? 'a hook blocked it and gave no reason' };
  }
  return { ...common, decision: common.context ? 'context' : 'none' };
}
