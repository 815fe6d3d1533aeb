// How `loupe acp` asks (docs/architecture.md, "loupe acp"): whatever Loupe's rules would ask
// becomes `session/request_permission` in the editor that drives the session, with allow once,
// allow always, reject once and reject always. "Allow always" is answered as the app's "allow
// always" (the gate saves the rule the card proposes to `.loupe/config.json`); "reject always"
// saves the same patterns as deny rules. A cancelled request, a client that fails or goes away,
// and no answer within the approval timeout are all refusals: a call is never let through unasked.
import type { PermissionOption, RequestPermissionRequest, RequestPermissionResponse, ToolCallContent, ToolCallUpdate } from '@agentclientprotocol/sdk';
import type { ApprovalAnswer, ApprovalRequest } from '../../services/permissions/approvalQueue';
import type { PermissionRule } from '../../services/permissions/types';

/** How long a question waits for the editor's answer before it is refused (LOUPE_ACP_APPROVAL_TIMEOUT_MS). */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 10 * 60_000;

export const OPTION_IDS = { allowOnce: 'allow_once', allowAlways: 'allow_always', rejectOnce: 'reject_once', rejectAlways: 'reject_always' } as const;

/** The timeout from the environment: a positive whole number of milliseconds, else the default. */
export function approvalTimeoutMs(env: NodeJS.ProcessEnv): number {
  const n = Number(env.LOUPE_ACP_APPROVAL_TIMEOUT_MS);
  return Number.isInteger(n) && n > 0 ? n : DEFAULT_APPROVAL_TIMEOUT_MS;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms % 1000 ? 1 : 0)} s`;

const rulesText = (rules: { pattern: string }[]) => rules.map((r) => `"${r.pattern}"`).join(', ');

/** Whether an "always" answer means something: a rule to save, or a repository's server, hook or agent to approve in this folder. */
const hasAlways = (req: ApprovalRequest) => req.always.length > 0 || req.kind === 'mcp-server' || req.kind === 'hook' || req.kind === 'agent';

/** The options offered: "always" only where it saves something. */
export function permissionOptions(req: ApprovalRequest): PermissionOption[] {
  const always = hasAlways(req);
  const saves = req.always.length ? ` (saves ${rulesText(req.always)} to .loupe/config.json)` : '';
  return [
    { optionId: OPTION_IDS.allowOnce, name: 'Allow once', kind: 'allow_once' },
    ...(always ? [{ optionId: OPTION_IDS.allowAlways, name: `Allow always${saves}`, kind: 'allow_always' as const }] : []),
    { optionId: OPTION_IDS.rejectOnce, name: 'Reject', kind: 'reject_once' },
    ...(req.always.length ? [{ optionId: OPTION_IDS.rejectAlways, name: `Reject always${saves.replace('saves', 'saves a deny rule for')}`, kind: 'reject_always' as const }] : []),
  ];
}

/** What the editor shows of the question: its diff for an edit, else what it would run and why it asks. */
export function permissionToolCall(req: ApprovalRequest, toolCallId: string, clientPath: (rel: string) => string): ToolCallUpdate {
  const why = `${req.reason}${req.rule ? ` (rule ${req.rule})` : ''}${req.sandboxed === false ? '. It runs OUTSIDE the sandbox.' : ''}`;
  const content: ToolCallContent[] = [];
  if (req.edit) content.push({ type: 'diff', path: clientPath(req.edit.path), oldText: req.edit.before, newText: req.edit.after ?? '' });
  content.push({ type: 'content', content: { type: 'text', text: [`${req.tool}: ${req.summary}`, `Why it asks: ${why}`, req.details ?? ''].filter(Boolean).join('\n\n') } });
  return {
    toolCallId,
    title: `${req.tool}: ${req.summary}`.slice(0, 200),
    status: 'pending',
    content,
    _meta: { loupe: { approval_id: req.id, kind: req.kind, ...(req.sandboxed !== undefined ? { sandboxed: req.sandboxed } : {}) } },
  };
}

/** The answer chosen in the editor, as the approval queue takes it; `rejectAlways` carries the deny rules to save. */
export function answerOf(req: ApprovalRequest, res: RequestPermissionResponse): { answer: ApprovalAnswer; deny?: PermissionRule[] } {
  const outcome = res.outcome;
  if (outcome.outcome !== 'selected') return { answer: { answer: 'deny', message: 'The request was cancelled in the editor.' } };
  switch (outcome.optionId) {
    case OPTION_IDS.allowOnce:
      return { answer: { answer: 'once' } };
    case OPTION_IDS.allowAlways:
      return { answer: hasAlways(req) ? { answer: 'always' } : { answer: 'once' } };
    case OPTION_IDS.rejectAlways:
      return { answer: { answer: 'deny' }, deny: req.always.map((r) => ({ kind: r.kind, pattern: r.pattern, action: 'deny' as const })) };
    default:
      // reject_once, and any option this question did not offer.
      return { answer: { answer: 'deny' } };
  }
}

export interface AskDeps {
  /** Sends `session/request_permission`; aborting `signal` cancels it (`$/cancel_request`) and stops waiting. */
  request(params: RequestPermissionRequest, signal: AbortSignal): Promise<RequestPermissionResponse>;
  timeoutMs: number;
  /** Saves "reject always" rules where "allow always" goes. */
  saveDenyRules(rules: PermissionRule[]): Promise<void>;
  /** Told when a question was refused for want of an answer, or the deny rules could not be saved. */
  warn(message: string): void;
}

/**
 * Asks the editor one question. Resolves with the answer; a timeout, a failed or cancelled
 * request is a refusal (`unattended` when nobody answered, so the model is told the rule to add).
 */
export async function askEditor(req: ApprovalRequest, params: RequestPermissionRequest, signal: AbortSignal, deps: AskDeps): Promise<ApprovalAnswer> {
  const ac = new AbortController();
  const stop = () => ac.abort();
  signal.addEventListener('abort', stop, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ac.abort();
  }, deps.timeoutMs);
  try {
    const res = await deps.request(params, ac.signal);
    const { answer, deny } = answerOf(req, res);
    if (deny?.length) {
      await deps.saveDenyRules(deny).catch((err: unknown) => deps.warn(`"Reject always" is kept as a refusal of this call only: the deny rule could not be saved (${(err as Error).message}).`));
    }
    return answer;
  } catch (err) {
    if (timedOut) deps.warn(`No answer from the editor within ${seconds(deps.timeoutMs)} to: ${req.tool} ${req.summary}; refused.`);
    else if (!signal.aborted) deps.warn(`The editor could not answer the question about ${req.tool} ${req.summary} (${(err as Error).message}); refused.`);
    return { answer: 'deny', unattended: true };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', stop);
  }
}
