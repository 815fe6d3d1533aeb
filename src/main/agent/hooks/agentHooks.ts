// Where the agent meets the workspace's hooks (docs/architecture.md, "Hooks"): each moment of a
// session fires its event with the input Claude Code gives there, and what the hooks said comes
// back as what the agent does: a refused or questioned tool call, a rewritten input, context for
// the model, a blocked prompt or stop. Every hook that decided something is told as a `hook`
// chat event, under its tool card when it was about one.
import path from 'node:path';
import type { ChatEventBody, HookDecisionName } from '../../../shared/contract';
import type { HookDialect, HookEvent } from '../../services/config/hooksConfig';
import type { HookAnswer } from '../../services/hooks/answer';
import type { FireRequest, HookResult, Hooks } from '../../services/hooks/hooks';
import { PermissionDeniedError } from '../../services/permissions/errors';
import type { HookVerdict } from '../../services/permissions/types';
import { SESSIONS_REL } from '../../services/sessions/sessionStore';
import { failure, type ToolRegistry } from '../tools/registry';
import type { ToolResult } from '../tools/types';
import { argsFromHook, hookToolInput, hookToolName, hookToolResponse } from './hookTools';

/** What every firing needs from the request. */
export interface HookRun {
  correlationId?: string;
  signal?: AbortSignal;
  /** The request's mode as Claude Code names it (`default`, `plan`). */
  permissionMode?: string;
  emit(e: ChatEventBody): void;
}

export interface BeforeTool {
  /** A hook refused the call (deny, exit 2): what the model gets instead of running it. */
  refused?: ToolResult;
  /** Handed to the gate with the call: a question, or the person's hook's allow. */
  verdict?: HookVerdict;
  /** The arguments as the hooks left them. */
  args: unknown;
  /** What the hooks add for the model (additionalContext). */
  notes: string[];
  /** A hook said `continue: false`: the request ends after this call. */
  stop?: string;
}

/** A hook as a person reads it in a reason: its event, command line and file. */
export const hookLabel = (r: HookResult): string => `the ${r.hook.event} hook "${r.hook.line}" (${r.hook.source})`;

const note = (r: HookResult, text: string): string => `[${r.hook.event} hook ${r.hook.source}: ${r.hook.line}]\n${text}`;

/** The subagent a runner's hooks fire for: its SessionStart is SubagentStart, its Stop SubagentStop. */
export interface HookedAgent {
  agent_id: string;
  agent_type: string;
  /** Its own session's file (Claude Code's `agent_transcript_path`). */
  agent_transcript_path: string;
}

export class AgentHooks {
  constructor(
    private readonly hooks: Hooks,
    /** `sessionId`: the session whose request this is (a subagent's parent's); `agent`: the subagent, when a child runs. */
    private readonly opts: { root: string; sessionId: string; agent?: HookedAgent },
  ) {}

  /** A subagent's hooks: its start and stop are the subagent events. */
  get forAgent(): boolean {
    return !!this.opts.agent;
  }

  private get transcriptPath(): string {
    return path.join(this.opts.root, SESSIONS_REL, `${this.opts.sessionId}.json`);
  }

  private async fire(event: HookEvent, run: HookRun, spec: Pick<FireRequest, 'target' | 'input' | 'about'>, callId?: string): Promise<HookResult[]> {
    const results = await this.hooks.fire({
      event,
      sessionId: this.opts.sessionId,
      transcriptPath: this.transcriptPath,
      ...(run.correlationId ? { correlationId: run.correlationId } : {}),
      ...(run.signal ? { signal: run.signal } : {}),
      ...(run.permissionMode ? { permissionMode: run.permissionMode } : {}),
      ...spec,
    });
    for (const r of results) this.tell(r, run, callId);
    return results;
  }

  /** One chat event per hook that decided, warned or said something. */
  private tell(r: HookResult, run: HookRun, callId?: string, decision: HookDecisionName = r.answer.decision): void {
    const a = r.answer;
    if (decision === 'none' && !a.message && !a.stop) return;
    const reason = [a.reason, a.stop ? `stop: ${a.stop}` : undefined, a.message].filter(Boolean).join(' — ');
    run.emit({ type: 'hook', event: r.hook.event, source: r.hook.source, decision, ms: r.ms, hook: r.hook.line, ...(callId ? { call_id: callId } : {}), ...(reason ? { reason } : {}) });
  }

  /** PreToolUse: a deny refuses the call, an ask (or a hook that failed) is a card, an allow goes to the gate. */
  async beforeTool(registry: ToolRegistry, call: { id: string; name: string; args: unknown }, run: HookRun): Promise<BeforeTool> {
    const { root } = this.opts;
    const results = await this.fire(
      'PreToolUse',
      run,
      {
        target: (d) => hookToolName(registry, call.name, d),
        input: (d) => ({ tool_name: hookToolName(registry, call.name, d), tool_input: hookToolInput(registry, call.name, call.args, d, root), tool_use_id: call.id }),
      },
      call.id,
    );
    const notes = results.flatMap((r) => (r.answer.context ? [note(r, r.answer.context)] : []));
    const stop = results.find((r) => r.answer.stop)?.answer.stop;
    const said = preToolUseVerdict(results);
    if (said.refused) return { refused: said.refused, args: call.args, notes, ...(stop ? { stop } : {}) };
    let args = call.args;
    for (const r of results) if (r.answer.updatedInput) args = argsFromHook(registry, call.name, r.answer.updatedInput, args, r.hook.dialect, root);
    return { ...(said.verdict ? { verdict: said.verdict } : {}), args, notes, ...(stop ? { stop } : {}) };
  }

  /** PostToolUse (or PostToolUseFailure): what the hooks tell the model is added to the tool's answer. */
  async afterTool(registry: ToolRegistry, call: { id: string; name: string; args: unknown }, result: ToolResult, run: HookRun): Promise<{ notes: string[]; stop?: string }> {
    const { root } = this.opts;
    const event: HookEvent = result.ok ? 'PostToolUse' : 'PostToolUseFailure';
    const input = (d: HookDialect) => {
      const toolInput = hookToolInput(registry, call.name, call.args, d, root);
      const base = { tool_name: hookToolName(registry, call.name, d), tool_input: toolInput, tool_use_id: call.id };
      return result.ok ? { ...base, tool_response: hookToolResponse(registry, call.name, toolInput, result, d) } : { ...base, error: result.output, is_interrupt: result.error?.code === 'ABORTED' };
    };
    const summary = registry.summarize(call.name, call.args);
    const results = await this.fire(event, run, { target: (d) => hookToolName(registry, call.name, d), input, about: `after ${call.name}${summary ? ` ${summary}` : ''}` }, call.id);
    const notes = results.flatMap((r) => [...(r.answer.decision === 'block' && r.answer.reason ? [note(r, r.answer.reason)] : []), ...(r.answer.context ? [note(r, r.answer.context)] : [])]);
    const stop = results.find((r) => r.answer.stop)?.answer.stop;
    return { notes, ...(stop ? { stop } : {}) };
  }

  /** UserPromptSubmit: a block keeps the prompt from the model (the person is told why); context goes with it. */
  async promptSubmit(prompt: string, run: HookRun): Promise<{ blocked?: string; notes: string[]; stop?: string }> {
    const results = await this.fire('UserPromptSubmit', run, { input: () => ({ prompt }) });
    const blocked = results.filter((r) => r.answer.decision === 'block');
    const stop = results.find((r) => r.answer.stop)?.answer.stop;
    return {
      ...(blocked.length ? { blocked: blocked.map((r) => `${hookLabel(r)}: ${r.answer.reason}`).join('\n') } : {}),
      notes: results.flatMap((r) => (r.answer.context ? [note(r, r.answer.context)] : [])),
      ...(stop ? { stop } : {}),
    };
  }

  /** SessionStart: its plain stdout and additionalContext are context for the model. */
  async sessionStart(source: 'startup' | 'resume' | 'clear' | 'compact', model: string | undefined, run: HookRun): Promise<string[]> {
    if (this.opts.agent) return this.subagentStart(this.opts.agent, run);
    const results = await this.fire('SessionStart', run, { target: () => source, input: () => ({ source, ...(model ? { model } : {}) }) });
    return results.flatMap((r) => (r.answer.context ? [note(r, r.answer.context)] : []));
  }

  async sessionEnd(reason: 'clear' | 'logout' | 'prompt_input_exit' | 'other', run: HookRun): Promise<void> {
    await this.fire('SessionEnd', run, { target: () => reason, input: () => ({ reason }) });
  }

  async preCompact(trigger: 'auto' | 'manual', run: HookRun): Promise<void> {
    await this.fire('PreCompact', run, { target: () => trigger, input: () => ({ trigger, custom_instructions: '' }) });
  }

  /**
   * Stop: a block sends the model back to work with the reason. `blocksInARow` counts this
   * request's blocks so far: the third in a row is overruled (told as `overruled`), so a hook
   * that ignores `stop_hook_active` cannot hold a turn open.
   */
  async stop(lastMessage: string, blocksInARow: number, run: HookRun): Promise<{ block?: string; overruled?: string; stop?: string }> {
    if (this.opts.agent) return this.subagentStop({ ...this.opts.agent, last_assistant_message: lastMessage }, blocksInARow, run);
    return this.stopLike('Stop', { stop_hook_active: blocksInARow > 0, last_assistant_message: lastMessage }, blocksInARow, run);
  }

  /** For the subagents feature: a child session starts (`agent_type` is its kind); context for the child comes back. */
  async subagentStart(agent: { agent_id: string; agent_type: string; agent_transcript_path?: string }, run: HookRun): Promise<string[]> {
    const results = await this.fire('SubagentStart', run, { target: () => agent.agent_type, input: () => ({ ...agent }) });
    return results.flatMap((r) => (r.answer.context ? [note(r, r.answer.context)] : []));
  }

  /** For the subagents feature: a child session would stop; a block sends it back to work, as Stop does. */
  async subagentStop(agent: { agent_id: string; agent_type: string; agent_transcript_path?: string; last_assistant_message: string }, blocksInARow: number, run: HookRun): Promise<{ block?: string; overruled?: string; stop?: string }> {
    return this.stopLike('SubagentStop', { ...agent, stop_hook_active: blocksInARow > 0 }, blocksInARow, run, agent.agent_type);
  }

  private async stopLike(event: 'Stop' | 'SubagentStop', input: Record<string, unknown>, blocksInARow: number, run: HookRun, target?: string): Promise<{ block?: string; overruled?: string; stop?: string }> {
    const overrule = blocksInARow >= 2;
    const results = await this.hooks.fire({
      event,
      sessionId: this.opts.sessionId,
      transcriptPath: this.transcriptPath,
      ...(run.correlationId ? { correlationId: run.correlationId } : {}),
      ...(run.signal ? { signal: run.signal } : {}),
      ...(target !== undefined ? { target: () => target } : {}),
      input: () => input,
    });
    const blocks = results.filter((r) => r.answer.decision === 'block');
    for (const r of results) this.tell(r, run, undefined, overrule && r.answer.decision === 'block' ? 'overruled' : r.answer.decision);
    const stop = results.find((r) => r.answer.stop)?.answer.stop;
    if (!blocks.length) return stop ? { stop } : {};
    const why = blocks.map((r) => `${hookLabel(r)}: ${r.answer.reason}`).join('\n');
    if (overrule) return { overruled: `${why}\nThis is the third block in a row, so it is overruled and the agent stops here.`, ...(stop ? { stop } : {}) };
    return { block: why, ...(stop ? { stop } : {}) };
  }
}

/**
 * What a call's PreToolUse hooks said, together (Claude Code's order: deny, then ask, then
 * allow): any deny refuses the call; a hook that failed or asked is a question; an allow goes to
 * the gate, which lets the person's own lift the defaults' questions and the repository's nothing.
 */
export function preToolUseVerdict(results: HookResult[]): { refused?: ToolResult; verdict?: HookVerdict } {
  const denied = results.filter((r) => r.answer.decision === 'deny');
  if (denied.length) {
    const why = denied.map((r) => `Blocked by ${hookLabel(r)}: ${r.answer.reason}`).join('\n');
    const first = denied[0]!;
    return { refused: failure(new PermissionDeniedError(`${why}\nDo not try to get around it; choose another approach or ask the user.`, { denied_by: 'hook', hook: first.hook.line, source: first.hook.source })) };
  }
  // A hook that could not answer is a question for the person, never a silent yes.
  const asking = results.find((r) => r.answer.decision === 'error') ?? results.find((r) => r.answer.decision === 'ask');
  if (asking) {
    const reason = asking.answer.decision === 'error' ? `it ${asking.answer.reason}, so it could not check this call` : (asking.answer.reason ?? '');
    return { verdict: { decision: 'ask', owner: asking.hook.owner, hook: hookLabel(asking), reason } };
  }
  const allow = results.find((r) => r.answer.decision === 'allow' && r.hook.owner === 'user') ?? results.find((r) => r.answer.decision === 'allow');
  return allow ? { verdict: { decision: 'allow', owner: allow.hook.owner, hook: hookLabel(allow), reason: allow.answer.reason ?? '' } } : {};
}

/** A tool that asks no rule still shows a hook's question: the kind its card is drawn as. */
export function cardKind(facts: { permission: string | null; effect: string }): 'read' | 'edit' | 'bash' {
  if (facts.permission === 'read' || facts.permission === 'edit' || facts.permission === 'bash') return facts.permission;
  return facts.effect === 'read' ? 'read' : facts.effect === 'write' ? 'edit' : 'bash';
}

export type { HookAnswer };
