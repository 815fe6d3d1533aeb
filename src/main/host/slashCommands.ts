// A request that starts with a slash (docs/architecture.md, "Skills and commands"): a custom
// command or a skill called by its name becomes the prompt, expanded in its own dialect before
// anything is sent, and Loupe's built-ins act. Every runner gets the same expanded prompt, since
// this happens in the host, before the runner: the app, `loupe serve`, `loupe run` alike.
//
// A command's shell lines run here, before the prompt goes, and only as a `bash` call of the
// request would: through the permission gate (a card when the rules ask; a repository's lines
// ask even inside the sandbox), in the OS sandbox, recorded as modifications, shown as tool cards
// in the chat. A refusal or a failure to run ends the request with nothing sent. Its files are
// read through the read rules (a refused one refuses the request). Its `allowed-tools` apply to the
// request as the gate decides (the person's as written, a repository's once trusted and approved).
import type { ChatAttachment, CommandInputView, SlashSource } from '../../shared/contract';
import { LoupeError } from '../errors';
import { now, type AgentEvent } from '../agent/loop/events';
import { toolContextOf } from '../agent/tools/context';
import type { ToolOutputHook } from '../agent/tools/bash';
import type { ToolRegistry } from '../agent/tools/registry';
import type { FileSession } from '../services/files/readTracker';
import { BUILTIN_NAMES } from '../services/commands/builtins';
import { expandCommand, missingInputs, parseSlash, type Part } from '../services/commands/expand';
import { commandPath } from '../services/commands/catalog';
import type { CommandDef } from '../services/commands/types';
import { RequestGrants } from '../services/permissions/grants';
import { grantDigest, rulesOfAllowedTools } from '../services/skills/allowedTools';
import type { Skill } from '../services/skills/types';
import { lstatInside } from '../services/files/safeOpen';
import { resolveInWorkspace } from '../services/workspace/pathGuard';
import type { WorkspaceServices } from '../services/workspaceServices';
import { attachedText } from './attachments';

/** A command asks for values by name that were not given: the composer and `loupe run` ask, then send again with `inputs`. */
export class MissingInputsError extends LoupeError {
  constructor(command: string, missing: CommandInputView[]) {
    super('INVALID_ARGUMENT', `/${command} needs ${missing.map((m) => m.name).join(', ')}: give ${missing.length > 1 ? 'them' : 'it'} as name=value after the command, or answer when asked.`, { missing_inputs: missing.map((m) => ({ ...m })), command });
  }
}

/** A command's shell line that could not run, or was refused: the request ends with nothing sent. */
export class CommandNotSentError extends LoupeError {
  constructor(command: string, why: { code: LoupeError['code']; message: string }) {
    super(why.code, `/${command} was not sent: ${why.message}`);
  }
}

/** What a slash at the start of a message asks for. */
export type SlashPlan =
  | { kind: 'builtin'; name: string; args: string }
  | {
      kind: 'expand';
      name: string;
      source: SlashSource;
      /** Whose file it is, as the person would find it. */
      path: string;
      def: Pick<CommandDef, 'dialect' | 'template' | 'argumentNames' | 'inputs' | 'allowedTools'>;
      args: string;
      inputs: Record<string, string>;
      /** A skill called by its name: its folder. */
      skillDir?: string;
      /** The key an approval of its allowed-tools is kept under. */
      grantKey: string;
    };

/** The command or skill a message names, or null when it names none (it is then sent as typed). */
export async function slashPlan(services: WorkspaceServices, text: string, inputs: Record<string, string> = {}): Promise<SlashPlan | null> {
  const slash = parseSlash(text);
  if (!slash) return null;
  if (BUILTIN_NAMES.includes(slash.name)) return { kind: 'builtin', name: slash.name, args: slash.args };
  const command = await services.commands.find(slash.name);
  if (command) {
    const missing = missingInputs(command, slash.args, inputs);
    if (missing.length) throw new MissingInputsError(command.name, missing);
    return { kind: 'expand', name: command.name, source: command.scope, path: commandPath(command), def: command, args: slash.args, inputs, grantKey: `command:${command.name}` };
  }
  const skill = await services.skills.find(slash.name);
  if (skill && skill.name === slash.name && !skill.agentOnly) return skillPlan(services, skill, slash.args);
  return null;
}

async function skillPlan(services: WorkspaceServices, skill: Skill, args: string): Promise<SlashPlan> {
  const loaded = await services.skills.load(skill);
  const where = skill.shownDir;
  // As Claude Code gives a skill called by name: its body, with where its files are.
  const template = `${loaded.body.trim()}\n\nSkill folder: ${skill.rel ?? skill.dir} (paths in this skill are relative to it).`;
  return {
    kind: 'expand',
    name: skill.name,
    source: skill.scope,
    path: `${where}/SKILL.md`,
    def: { dialect: 'claude', template, argumentNames: [], inputs: [], allowedTools: skill.allowedTools },
    args,
    inputs: {},
    skillDir: skill.dir,
    grantKey: `skill:${skill.name}`,
  };
}

export interface ExpandRun {
  services: WorkspaceServices;
  registry: ToolRegistry;
  files: FileSession;
  sessionId: string;
  correlationId: string;
  typed: string;
  signal: AbortSignal;
  /** The chat's events of this request (tool cards for the shell lines, `command_expanded`). */
  emit: (event: AgentEvent) => void;
}

export interface Expanded {
  text: string;
  /** Files the message attaches (`@path` that name existing files). */
  attach: ChatAttachment[];
  grants: RequestGrants;
}

/** The files `@path` names that exist in the workspace (others stay text, as in Claude Code). */
export async function existingFiles(services: WorkspaceServices, paths: string[]): Promise<ChatAttachment[]> {
  const out: ChatAttachment[] = [];
  for (const p of paths) {
    const resolved = await resolveInWorkspace(services.root, p).catch(() => null);
    if (!resolved || !resolved.rel) continue;
    const st = lstatInside(services.root, resolved.abs);
    if (st?.isFile()) out.push({ kind: 'file', path: resolved.rel });
  }
  return out;
}

/**
 * The command's final text: its grants first (its shell lines may need them), then each shell
 * line run as the request's `bash` call, each file read by the read rules. Emits the tool cards
 * and, at the end, `command_expanded`. Throws when a line is refused or cannot run.
 */
export async function expandPlan(plan: Extract<SlashPlan, { kind: 'expand' }>, run: ExpandRun): Promise<Expanded> {
  const { services } = run;
  const emit = (e: Record<string, unknown> & { type: AgentEvent['type'] }) => run.emit({ ...e, correlation_id: run.correlationId, t: now() } as AgentEvent);
  const grants = new RequestGrants();
  const callRef = (n: number) => ({ call_id: `cmd-${n}-${run.correlationId}`, correlation_id: run.correlationId, session_id: run.sessionId });
  let gate = services.permissions.withGrants(grants);
  if (plan.source === 'repository') gate = gate.forRepositoryFile(plan.path);
  if (plan.def.allowedTools?.length) {
    const { rules, ignored } = rulesOfAllowedTools(plan.def.allowedTools);
    const outcome = await gate.forCall(callRef(0)).grant({
      label: `${plan.grantKey.startsWith('skill:') ? 'skill' : 'command'} /${plan.name} (${plan.path})`,
      scope: plan.source === 'personal' ? 'personal' : 'repository',
      key: plan.grantKey,
      digest: grantDigest(plan.path, plan.def.allowedTools),
      entries: plan.def.allowedTools,
      rules,
      ignored,
      signal: run.signal,
    });
    emit({ type: 'notice', text: `/${plan.name}: ${outcome.why}.` });
  }
  const expansion = expandCommand(plan.def, { args: plan.args, inputs: plan.inputs, typed: run.typed, root: services.root, sessionId: run.sessionId, ...(plan.skillDir ? { skillDir: plan.skillDir } : {}) });
  const ctx = { ...toolContextOf(services, { session: run.files, corrector: null, signal: run.signal }), correlationId: run.correlationId };
  const out: string[] = [];
  let n = 0;
  for (const part of expansion.parts) {
    if (part.kind === 'text') out.push(part.text);
    else if (part.kind === 'file') out.push(await fileText(services, plan.name, part.path));
    else {
      const ref = callRef(++n);
      out.push(await shellText(plan.name, part, ref.call_id, { ...ctx, permissions: gate.forCall(ref) }, run.registry, emit));
    }
  }
  const text = out.join('');
  emit({ type: 'command_expanded', name: plan.name, source: plan.source, text });
  return { text, attach: await existingFiles(services, expansion.attach), grants };
}

async function fileText(services: WorkspaceServices, name: string, requested: string): Promise<string> {
  try {
    return (await attachedText(services, requested)).text;
  } catch (err) {
    const e = err instanceof LoupeError ? err : new LoupeError('FILE_READ_ERROR', String(err));
    throw new CommandNotSentError(name, { code: e.code, message: `@{${requested}}: ${e.message}` });
  }
}

/** Characters of a shell line's output put in the prompt as printed; longer goes as the tool cuts it. */
const SHELL_OUTPUT_CHARS = 50_000;

type Emit = (e: Record<string, unknown> & { type: AgentEvent['type'] }) => void;

/** One shell line as the request's `bash` call: asked, sandboxed, recorded and shown like any other. */
async function shellText(name: string, part: Extract<Part, { kind: 'shell' }>, callId: string, ctx: ReturnType<typeof toolContextOf> & { correlationId: string }, registry: ToolRegistry, emit: Emit): Promise<string> {
  const args = { command: part.command, description: `run by /${name} before it is sent`, correlation_id: ctx.correlationId };
  const facts = registry.callFacts('bash', args);
  emit({ type: 'tool_call_started', call_id: callId, tool: 'bash', ...facts, args });
  let printed = '';
  const t0 = performance.now();
  const hooked: typeof ctx & ToolOutputHook = {
    ...ctx,
    onToolOutput: (_tool, text) => {
      printed += text;
      emit({ type: 'tool_output', call_id: callId, text });
    },
  };
  const r = await registry.call('bash', args, hooked);
  emit({ type: 'tool_call_finished', call_id: callId, tool: 'bash', ok: r.ok, output: r.output, ...(r.data ? { data: r.data } : {}), ...(r.error ? { error: r.error } : {}), duration_ms: performance.now() - t0 });
  if (!r.ok) throw new CommandNotSentError(name, { code: r.error?.code ?? 'INTERNAL', message: `\`${part.command}\`: ${r.error?.message ?? r.output}` });
  const exit = typeof r.data?.exit_code === 'number' ? r.data.exit_code : 0;
  // What it printed, as printed; a long output as the tool gives it (its start and end, and where the rest is).
  const body = (printed && !r.data?.truncated && printed.length <= SHELL_OUTPUT_CHARS ? printed : r.output).replace(/\n+$/, '');
  return part.style === 'gemini' && exit !== 0 ? `${body}\n[Shell command exited with code ${exit}]` : body;
}
