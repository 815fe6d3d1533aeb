// Running the tool calls of one model turn. Calls that only read the workspace run together; as soon as one call
// may write or run something, the turn runs in order, so a later call sees what an earlier one
// did. Bad arguments and unknown tools become error results the model can correct.
import { LoupeError, advised } from '../../errors';
import type { AssistantTurn, ChatMessage, ChatToolCall } from '../llm/types';
import { isJsonObject } from '../llm/wire';
import type { ToolOutputHook } from '../tools/bash';
import { failure, type ToolRegistry } from '../tools/registry';
import { runsConcurrently, type ToolContext, type ToolFacts, type ToolResult } from '../tools/types';
import type { PermissionGate } from '../../services/permissions/permissionGate';
import { cardKind, type AgentHooks, type HookRun } from '../hooks/agentHooks';

export interface PreparedCall {
  call: ChatToolCall;
  args: unknown;
  /** Set when the call cannot run: the answer the model gets instead. */
  rejected?: ToolResult;
}

/**
 * The call's arguments as the model gave them, parsed; the request's correlation id is not among
 * them (it travels in the tool context, so a server tool receives exactly the model's arguments).
 */
export function prepareCall(call: ChatToolCall, registry: ToolRegistry): PreparedCall {
  const name = call.function.name;
  const tool = registry.get(name);
  if (!tool) {
    const known = registry.list().map((t) => t.name).join(', ');
    return { call, args: null, rejected: failure(new LoupeError('INVALID_ARGUMENT', `Unknown tool "${name}". Use one of: ${known}.`)) };
  }
  let args: unknown;
  try {
    args = call.function.arguments.trim() ? JSON.parse(call.function.arguments) : {};
  } catch (err) {
    const why = (err as Error).message;
    return { call, args: call.function.arguments, rejected: failure(new LoupeError('INVALID_ARGUMENT', `The arguments for ${name} are not valid JSON (${why}). Call ${name} again with one JSON object.`)) };
  }
  if (!args || typeof args !== 'object' || Array.isArray(args)) {
    return { call, args, rejected: failure(new LoupeError('INVALID_ARGUMENT', `The arguments for ${name} must be a JSON object.`)) };
  }
  return { call, args };
}

/**
 * The turn as it is kept in the conversation. Arguments that are not a JSON object (cut off at
 * the token limit, say) are replayed as "{}": vLLM, llama-server, SGLang and Ollama parse
 * history and would refuse every later request. The model's text stays in raw_arguments for
 * the person, and the tool's answer tells the model what was wrong.
 */
export function assistantMessage(turn: AssistantTurn): ChatMessage {
  const calls = turn.toolCalls.map((c) =>
    !c.function.arguments.trim() || isJsonObject(c.function.arguments) ? c : { ...c, function: { ...c.function, arguments: '{}' }, raw_arguments: c.function.arguments },
  );
  return { role: 'assistant', content: turn.content || null, ...(calls.length ? { tool_calls: calls } : {}), ...turn.reasoningFields };
}

export interface RunHooks {
  started(p: PreparedCall): void;
  finished(p: PreparedCall, result: ToolResult, durationMs: number): void;
  output(p: PreparedCall, text: string): void;
}

/** The workspace's hooks around each call (docs/architecture.md, "Hooks"); `stop` is set when one said `continue: false`. */
export interface ToolHooks {
  hooks: AgentHooks;
  run: HookRun;
  stop?: string;
}

async function runOne(p: PreparedCall, registry: ToolRegistry, ctx: ToolContext, hooks: RunHooks, toolHooks?: ToolHooks): Promise<ToolResult> {
  hooks.started(p);
  const t0 = performance.now();
  let result: ToolResult;
  // The call's gate: the time its questions waited for the person is not the call's duration.
  let gate: PermissionGate | undefined;
  if (p.rejected) result = p.rejected;
  else if (ctx.signal.aborted) result = failure(advised(new LoupeError('ABORTED', 'Not run: the user stopped the request.'), 'Not run: you stopped the request.'));
  else {
    const name = p.call.function.name;
    const facts = registry.facts(name);
    const refused = modeRefusal(ctx.permissions, facts);
    if (refused) result = refused;
    else {
      const call = { id: p.call.id, name, args: p.args };
      const before = toolHooks ? await toolHooks.hooks.beforeTool(registry, call, toolHooks.run) : null;
      if (before?.stop) toolHooks!.stop ??= before.stop;
      // The gate's questions name this call, so the approval card and the chat card meet by id.
      const permissions = (gate = ctx.permissions?.forCall({ call_id: p.call.id, correlation_id: ctx.correlationId ?? '', session_id: ctx.session.id }, before?.verdict));
      const callCtx: ToolContext & ToolOutputHook = { ...ctx, callId: p.call.id, ...(permissions ? { permissions } : {}), onToolOutput: (_tool, text) => hooks.output(p, text) };
      const args = before?.args ?? p.args;
      if (before?.refused) result = before.refused;
      else {
        result = (await hookQuestion(permissions, facts, registry.summarize(name, args), ctx.signal)) ?? (await registry.call(name, args, callCtx));
        const after = toolHooks ? await toolHooks.hooks.afterTool(registry, { ...call, args }, result, toolHooks.run) : null;
        if (after?.stop) toolHooks!.stop ??= after.stop;
        const notes = [...(before?.notes ?? []), ...(after?.notes ?? [])];
        // What the hooks add is for the model; the person saw each hook under the card.
        if (notes.length) result = { ...result, output: [result.output, ...notes].filter(Boolean).join('\n\n'), for_person: result.for_person ?? result.output };
      }
    }
  }
  hooks.finished(p, result, Math.max(0, performance.now() - t0 - (gate?.waitedMs ?? 0)));
  return result;
}

/** A hook asked about a tool that consults no rule: its card comes first; a refusal is the call's answer. */
async function hookQuestion(gate: PermissionGate | undefined, facts: ToolFacts, summary: string, signal: AbortSignal): Promise<ToolResult | null> {
  if (!gate?.hookAskPending || facts.permission !== null) return null;
  try {
    await gate.confirm({ tool: facts.name, summary: `${facts.name}${summary ? ` ${summary}` : ''}`, kind: cardKind(facts), signal });
    return null;
  } catch (err) {
    return failure(err);
  }
}

/** The mode's answer to a call before it runs (plan mode refuses tools that say they write), from the tool's own facts. */
function modeRefusal(gate: PermissionGate | undefined, facts: ToolFacts): ToolResult | null {
  try {
    gate?.authorizeAction({ name: facts.name, effect: facts.effect, asks: facts.permission, ...(facts.delegates ? { delegates: true } : {}) });
    return null;
  } catch (err) {
    return failure(err);
  }
}

export async function runToolCalls(calls: PreparedCall[], registry: ToolRegistry, ctx: ToolContext, hooks: RunHooks, toolHooks?: ToolHooks): Promise<ToolResult[]> {
  const parallel = calls.length > 1 && calls.every((p) => p.rejected || runsConcurrently(registry.facts(p.call.function.name)));
  if (parallel) return Promise.all(calls.map((p) => runOne(p, registry, ctx, hooks, toolHooks)));
  const results: ToolResult[] = [];
  for (const p of calls) results.push(await runOne(p, registry, ctx, hooks, toolHooks));
  return results;
}
