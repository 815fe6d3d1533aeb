// Loupe as an ACP agent (docs/architecture.md, "loupe acp"): the protocol's methods over the
// folders' AgentHosts. A session is a Loupe chat session (its id is the saved session's), so
// `session/load` replays the kept transcript and `loupe run --session` continues it; a prompt is
// one request of that session, answered with its stop reason once every update has been sent.
import { existsSync } from 'node:fs';
import path from 'node:path';
import {
  RequestError,
  agent as acpAgent,
  PROTOCOL_VERSION,
  type AgentApp,
  type AgentContext,
  type ClientCapabilities,
  type InitializeResponse,
  type ListSessionsResponse,
  type McpServer,
  type PromptResponse,
  type SessionConfigOption,
  type SessionInfo,
  type StopReason,
} from '@agentclientprotocol/sdk';
import type { ChatMode, ChatSessionView } from '../../../shared/contract';
import { LoupeError, toWireError } from '../../errors';
import type { McpServerDecl, McpServerEntry } from '../../services/config/mcpServers';
import { SERVER_NAME } from '../../services/config/mcpServers';
import type { Logger } from '../../services/log/logger';
import type { ApprovalAnswer, ApprovalRequest } from '../../services/permissions/approvalQueue';
import type { PermissionRule } from '../../services/permissions/types';
import { LOUPE_VERSION } from '../../host/version';
import { SESSIONS_REL } from '../../services/sessions/sessionStore';
import { advertised, commandIn, listCommands, requestsOf, type CommandSession, type CommandSource } from './commands';
import { configOptions, modeOf, modeState, type ModelChoice } from './config';
import type { AcpFolder, AcpFolders } from './folders';
import { askEditor, permissionOptions, permissionToolCall } from './permissions';
import { promptRequest } from './prompt';
import { usageUpdate } from './updates';
import { AcpSession } from './session';

/** Sessions listed per page of `session/list`. */
export const LIST_PAGE = 50;
/** How long a session's setup waits for the endpoint's list of models (the list is optional). */
const MODELS_WAIT_MS = 2000;

export interface AcpAgentOptions {
  folders: (agent: AcpAgent) => AcpFolders;
  logger: Logger;
  /** The folder `loupe acp` was started in: its sessions are listed without a `cwd`. */
  home: string;
  approvalTimeoutMs: number;
  commands: CommandSource[];
  /** Said on stderr and in the log: refusals for want of an answer, rules that could not be saved. */
  warn(message: string): void;
}

/** An error as the client gets it: Loupe's code and message kept, the JSON-RPC code by kind. */
export function rpcError(err: unknown): RequestError {
  if (err instanceof RequestError) return err;
  const e = toWireError(err);
  const code = e.code === 'INVALID_ARGUMENT' || e.code === 'PERMISSION_DENIED' || e.code === 'PATH_OUTSIDE_WORKSPACE' ? -32602 : -32603;
  return new RequestError(code, e.message, { code: e.code, ...(e.details ? { details: e.details } : {}) });
}

const stopReasonOf = (status: string, s: AcpSession): StopReason => {
  if (status === 'done') return 'end_turn';
  if (status === 'aborted') return 'cancelled';
  if (status === 'turn_limit') return 'max_turn_requests';
  if (s.lastFinish === 'length') return 'max_tokens';
  if (s.lastFinish === 'content_filter') return 'refusal';
  const e = s.lastError ?? { code: 'LLM_ERROR', message: 'The request failed.' };
  throw new RequestError(-32603, e.message, { code: e.code });
};

/** A load's or resume's answer: the session's state without its id (the client named it). */
const without = <T extends { sessionId: string }>({ sessionId: _id, ...rest }: T): Omit<T, 'sessionId'> => rest;

/** A client's MCP server as one of the person's own (`mcpServers` of the settings' shape). */
export function serverDecl(s: McpServer): McpServerDecl | string {
  if (!SERVER_NAME.test(s.name)) return `the name ${JSON.stringify(s.name)} must be 1-40 letters, digits, "_", "." or "-"`;
  const file = 'the editor (its session)';
  if ('url' in s) {
    if (!/^https?:\/\//i.test(s.url)) return `${s.name}: the URL must start with http:// or https://`;
    const entry: McpServerEntry = { type: s.type === 'sse' ? 'sse' : 'http', url: s.url, ...(s.headers.length ? { headers: Object.fromEntries(s.headers.map((h) => [h.name, h.value])) } : {}) };
    return { name: s.name, source: 'user', file, entry };
  }
  const entry: McpServerEntry = { command: s.command, args: s.args, ...(s.env.length ? { env: Object.fromEntries(s.env.map((v) => [v.name, v.value])) } : {}) };
  return { name: s.name, source: 'user', file, entry };
}

export class AcpAgent {
  private client!: AgentContext;
  private capabilities: ClientCapabilities = {};
  private readonly sessions = new Map<string, AcpSession>();
  private readonly models = new Map<string, Promise<string[]>>();
  readonly folders: AcpFolders;

  constructor(private readonly opts: AcpAgentOptions) {
    this.folders = opts.folders(this);
  }

  /** The session a chat event or a question belongs to. */
  session(id: string | undefined): AcpSession | undefined {
    return id ? this.sessions.get(id) : undefined;
  }

  /** The protocol's methods, each answering from the sessions and folders. */
  app(): AgentApp {
    return acpAgent({ name: 'loupe' })
      .onConnect((c) => {
        this.client = c.client;
      })
      .onRequest('initialize', ({ params }) => this.initialize(params.clientCapabilities))
      .onRequest('session/new', ({ params }) => this.guard(() => this.open(params.cwd, null, params.mcpServers, false)))
      .onRequest('session/load', ({ params }) => this.guard(async () => without(await this.open(params.cwd, params.sessionId, params.mcpServers, true))))
      .onRequest('session/resume', ({ params }) => this.guard(async () => without(await this.open(params.cwd, params.sessionId, params.mcpServers ?? [], false))))
      .onRequest('session/list', ({ params }) => this.guard(() => this.list(params.cwd ?? undefined, params.cursor ?? undefined)))
      .onRequest('session/close', ({ params }) => this.guard(() => this.close(params.sessionId)))
      .onRequest('session/delete', ({ params }) => this.guard(() => this.delete(params.sessionId)))
      .onRequest('session/set_mode', ({ params }) => this.guard(() => this.setMode(this.known(params.sessionId), modeOf(params.modeId))))
      .onRequest('session/set_config_option', ({ params }) => this.guard(() => this.setOption(this.known(params.sessionId), params.configId, params.value)))
      .onRequest('session/prompt', ({ params, signal }) => this.guard(() => this.prompt(this.known(params.sessionId), params.prompt, signal)))
      .onNotification('session/cancel', ({ params }) => void this.sessions.get(params.sessionId)?.folder.host.stop(params.sessionId).catch(() => undefined));
  }

  private async guard<T>(fn: () => Promise<T> | T): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (!(err instanceof LoupeError) && !(err instanceof RequestError)) this.opts.logger.error('acp.crashed', { error: err });
      throw rpcError(err);
    }
  }

  private known(id: string): AcpSession {
    const s = this.sessions.get(id);
    if (!s) throw new RequestError(-32002, `No session ${id} is open here: create one with session/new, or open a saved one with session/load.`, { sessionId: id });
    return s;
  }

  private initialize(capabilities: ClientCapabilities | undefined): InitializeResponse {
    this.capabilities = capabilities ?? {};
    return {
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: true, embeddedContext: true },
        mcpCapabilities: { http: true, sse: true },
        sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {} },
      },
      agentInfo: { name: 'loupe', title: 'Loupe', version: LOUPE_VERSION },
      authMethods: [],
    };
  }

  // ---- sessions ------------------------------------------------------------------------------

  /** session/new (id null), session/load (replay) and session/resume. */
  private async open(cwd: string, id: string | null, servers: McpServer[], replay: boolean) {
    if (!path.isAbsolute(cwd)) throw new RequestError(-32602, `cwd must be an absolute path (got ${JSON.stringify(cwd)}).`);
    // Checked before anything is made: a server that cannot be used refuses the whole request.
    const decls = servers.map((server) => {
      const d = serverDecl(server);
      if (typeof d === 'string') throw new RequestError(-32602, `The MCP server cannot be used: ${d}.`);
      return d;
    });
    if (id !== null && this.sessions.get(id)?.running) throw new RequestError(-32600, `Session ${id} is working on a prompt here: cancel it first.`);
    const folder = await this.folders.get(cwd);
    await folder.servers();
    let view: ChatSessionView | null = null;
    if (id !== null) {
      view = await folder.host.getSession(id).catch(() => {
        throw new RequestError(-32002, `No saved session ${id} in ${folder.root}.`, { sessionId: id });
      });
    }
    const sessionId = id ?? (await folder.host.newSession()).id;
    const previous = this.sessions.get(sessionId);
    // Opened again: the next prompt runs in the mode the last request ran in.
    const mode: ChatMode = previous?.mode ?? (view ? (requestsOf(view).at(-1)?.mode ?? 'act') : 'act');
    previous?.close();
    const s = new AcpSession({ id: sessionId, folder, cwd, client: this.client, capabilities: this.capabilities, logger: this.opts.logger, mode });
    s.title = view?.session.title ?? folder.host.sessionState(sessionId)?.title;
    this.sessions.set(sessionId, s);
    await this.connectServers(s, decls);
    if (view && replay) {
      await s.replay(view.entries);
      if (view.usage) await s.send(usageUpdate(view.usage));
    }
    const answer = { sessionId, modes: modeState(s.mode), configOptions: await this.configOptions(s) };
    // The commands follow the answer (sent once this returns), when the client knows the session.
    setImmediate(() => void this.advertiseCommands(s));
    return answer;
  }

  private async connectServers(s: AcpSession, decls: McpServerDecl[]): Promise<void> {
    const mcp = s.folder.services.mcp;
    if (!decls.length) return void (await mcp.removeSessionServers(s.id));
    const { skipped } = await mcp.addSessionServers(s.id, decls);
    for (const name of skipped) this.opts.warn(`MCP server ${name} from the editor: your configuration already has a server of that name, so the configured one is used.`);
  }

  private async advertiseCommands(s: AcpSession): Promise<void> {
    const commands = await listCommands(this.opts.commands, s.folder.root, s.folder.services).catch(() => []);
    await s.send({ sessionUpdate: 'available_commands_update', availableCommands: advertised(commands) });
  }

  private async list(cwd: string | undefined, cursor: string | undefined): Promise<ListSessionsResponse> {
    if (cwd !== undefined && !path.isAbsolute(cwd)) throw new RequestError(-32602, `cwd must be an absolute path (got ${JSON.stringify(cwd)}).`);
    const start = cursor === undefined ? 0 : Number(cursor);
    if (!Number.isInteger(start) || start < 0) throw new RequestError(-32602, `Unknown cursor ${JSON.stringify(cursor)}: pass the nextCursor of the last answer.`);
    const folders = cwd !== undefined ? [await this.folders.get(cwd)] : await this.homeAndOpen();
    const all: SessionInfo[] = [];
    for (const f of folders) {
      const shown = cwd ?? [...this.sessions.values()].find((s) => s.folder === f)?.cwd ?? f.root;
      for (const s of await f.host.listSessions()) all.push({ sessionId: s.id, cwd: shown, title: s.title, updatedAt: s.updated_at });
    }
    all.sort((a, b) => (b.updatedAt ?? '').localeCompare(a.updatedAt ?? ''));
    const page = all.slice(start, start + LIST_PAGE);
    return { sessions: page, ...(start + LIST_PAGE < all.length ? { nextCursor: String(start + LIST_PAGE) } : {}) };
  }

  /** The folders opened so far, and the start folder when it keeps sessions (it is not opened otherwise). */
  private async homeAndOpen(): Promise<AcpFolder[]> {
    const open = await this.folders.all();
    if (open.some((f) => f.root === this.opts.home) || !existsSync(path.join(this.opts.home, SESSIONS_REL))) return open;
    return [await this.folders.get(this.opts.home), ...open];
  }

  private async close(id: string): Promise<Record<string, never>> {
    const s = this.known(id);
    this.sessions.delete(id);
    await s.folder.host.stop(id);
    await s.drained();
    s.close();
    await s.folder.services.mcp.removeSessionServers(id);
    return {};
  }

  private async delete(id: string): Promise<Record<string, never>> {
    for (const f of await this.homeAndOpen()) {
      if (!(await f.host.listSessions()).some((s) => s.id === id)) continue;
      if (this.sessions.has(id)) await this.close(id);
      await f.host.deleteSession(id);
      return {};
    }
    throw new RequestError(-32002, `No session ${id} to delete.`, { sessionId: id });
  }

  // ---- modes and options ---------------------------------------------------------------------

  /** The endpoint's models, asked once per folder and never waited for long (the choice is optional). */
  private async modelChoice(s: AcpSession): Promise<ModelChoice | null> {
    const host = s.folder.host;
    const config = await host.settings.config().catch(() => null);
    if (!config) return null;
    let listed = this.models.get(s.folder.root);
    if (!listed) {
      listed = host.models().then((r) => r.models, () => []);
      this.models.set(s.folder.root, listed);
    }
    const models = await Promise.race([listed, new Promise<string[]>((r) => setTimeout(() => r([]), MODELS_WAIT_MS).unref())]);
    return { current: s.model ?? config.model, models };
  }

  private async configOptions(s: AcpSession): Promise<SessionConfigOption[]> {
    return configOptions(s.mode, await this.modelChoice(s));
  }

  private async setMode(s: AcpSession, mode: ChatMode): Promise<Record<string, never>> {
    s.mode = mode;
    await s.send({ sessionUpdate: 'current_mode_update', currentModeId: mode }, { sessionUpdate: 'config_option_update', configOptions: await this.configOptions(s) });
    return {};
  }

  private async setOption(s: AcpSession, id: string, value: string | boolean): Promise<{ configOptions: SessionConfigOption[] }> {
    if (typeof value !== 'string') throw new RequestError(-32602, `The option ${id} takes one of its listed values, not ${JSON.stringify(value)}.`);
    if (id === 'mode') {
      s.mode = modeOf(value);
      await s.send({ sessionUpdate: 'current_mode_update', currentModeId: s.mode });
    } else if (id === 'model') {
      const choice = await this.modelChoice(s);
      if (!choice) throw new RequestError(-32602, 'No model is connected: set one in Loupe\'s settings or with LOUPE_MODEL and OPENAI_BASE_URL.');
      if (value !== choice.current && !choice.models.includes(value)) throw new RequestError(-32602, `${value} is not one of the models offered (${[choice.current, ...choice.models].join(', ')}).`);
      s.model = value;
      await s.folder.host.setSessionModel(s.id, value);
    } else {
      throw new RequestError(-32602, `There is no option ${JSON.stringify(id)}: the options are mode and model.`);
    }
    return { configOptions: await this.configOptions(s) };
  }

  // ---- prompts -------------------------------------------------------------------------------

  private commandSession(s: AcpSession): CommandSession {
    const host = s.folder.host;
    return {
      view: () => host.getSession(s.id),
      undoLast: async () => {
        const view = await host.getSession(s.id);
        const requests = requestsOf(view);
        const undone = new Set((view.undone ?? []).map((u) => u.correlation_id));
        const cutoff = requests.findIndex((r) => undone.has(r.correlationId));
        for (const r of requests.slice(0, cutoff === -1 ? requests.length : cutoff).reverse()) {
          const preview = await host.undoPreview({ session_id: s.id, correlation_id: r.correlationId });
          if (!preview.modifications) continue;
          const conflicts = preview.files.filter((f) => f.conflict).map((f) => f.file);
          if (conflicts.length) return `Nothing was undone: undoing request ${r.correlationId} would lose changes made since to ${conflicts.join(', ')}. Undo it in Loupe's timeline to choose what to keep.`;
          const out = await host.undo({ session_id: s.id, correlation_id: r.correlationId, digest: preview.digest, on_conflict: 'refuse' });
          return `Undid request ${r.correlationId}: ${out.rolled_back} change${out.rolled_back === 1 ? '' : 's'} in ${out.files.join(', ')}. This is group ${out.group_id}; rolling it back redoes it.`;
        }
        return 'Nothing to undo: no request of this session has changes in effect.';
      },
    };
  }

  private async prompt(s: AcpSession, blocks: Parameters<typeof promptRequest>[0], signal: AbortSignal): Promise<PromptResponse> {
    if (s.running) throw new RequestError(-32600, 'The agent is still working on the last prompt of this session: cancel it or wait for its answer.');
    const host = s.folder.host;
    let spec: { text: string; mode: ChatMode; plan?: string; attachments?: Awaited<ReturnType<typeof promptRequest>>['attachments'] };
    const only = blocks.every((b) => b.type === 'text') ? blocks.map((b) => (b.type === 'text' ? b.text : '')).join('') : '';
    const command = only.trimStart().startsWith('/') ? commandIn(only, await listCommands(this.opts.commands, s.folder.root, s.folder.services)) : null;
    if (command) {
      const outcome = await command.command.run(this.commandSession(s), command.input);
      if ('reply' in outcome) {
        await s.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: outcome.reply } });
        return { stopReason: 'end_turn' };
      }
      spec = { ...outcome.send, mode: outcome.send.mode ?? s.mode };
      if (spec.mode !== s.mode) await this.setMode(s, spec.mode);
    } else {
      const { actionFor } = await s.folder.services.permissions.readRules();
      const request = await promptRequest(blocks, { relOf: (p) => s.relOf(p), readAction: async (rel) => actionFor(rel || '.') });
      spec = { ...request, mode: s.mode };
    }
    s.lastError = null;
    s.lastFinish = undefined;
    const started = await host.request({ session_id: s.id, text: spec.text, mode: spec.mode, ...(spec.plan ? { plan: spec.plan } : {}), ...(spec.attachments?.length ? { attachments: spec.attachments } : {}) });
    const stop = () => void host.stop(s.id).catch(() => undefined);
    signal.addEventListener('abort', stop, { once: true });
    s.running = started.finished;
    try {
      const status = await started.finished;
      // A session's first request names it: the editor's list can show that name.
      const title = host.sessionState(s.id)?.title;
      if (title && title !== s.title) {
        s.title = title;
        await s.send({ sessionUpdate: 'session_info_update', title, updatedAt: new Date().toISOString() });
      }
      await s.drained();
      return { stopReason: stopReasonOf(status, s) };
    } finally {
      s.running = null;
      signal.removeEventListener('abort', stop);
    }
  }

  // ---- questions -----------------------------------------------------------------------------

  /**
   * A question of `root`'s folder, asked in the editor of the session that asked (a server's own
   * question or a repository's hook, which no session asks: the session working there now).
   * Null: nobody to ask, refused.
   */
  async ask(root: string, req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer | null> {
    const s = this.session(req.session_id) ?? [...this.sessions.values()].reverse().find((x) => x.folder.root === root && x.folder.host.sessionState(x.id)?.running);
    if (!s || !this.client) return null;
    const toolCallId = req.call_id ?? `approval-${req.id}`;
    if (!req.call_id) await s.send({ sessionUpdate: 'tool_call', toolCallId, title: `${req.tool}: ${req.summary}`.slice(0, 200), kind: 'other', status: 'pending' });
    // Asked after every update before it, so the editor already shows the call that asks.
    await s.drained();
    const answer = await askEditor(req, { sessionId: s.id, toolCall: permissionToolCall(req, toolCallId, (rel) => s.clientPath(rel)), options: permissionOptions(req) }, signal, {
      request: (params, cancel) => this.client.request('session/request_permission', params, { cancellationSignal: cancel, stopWaitingOnCancel: true }),
      timeoutMs: this.opts.approvalTimeoutMs,
      saveDenyRules: (rules) => this.saveDenyRules(s.folder, rules),
      warn: (m) => this.opts.warn(m),
    });
    const allowed = answer.answer !== 'deny';
    if (!req.call_id) await s.send({ sessionUpdate: 'tool_call_update', toolCallId, status: allowed ? 'completed' : 'failed' });
    else if (allowed) await s.send({ sessionUpdate: 'tool_call_update', toolCallId, status: 'in_progress' });
    return answer;
  }

  /** "Reject always": deny rules where "allow always" saves its rules (kept for this run when the file cannot be written). */
  private async saveDenyRules(folder: AcpFolder, rules: PermissionRule[]): Promise<void> {
    try {
      await folder.services.project.addRules(rules);
    } catch (err) {
      for (const r of rules) folder.services.engine.addSessionRule(r);
      throw err;
    }
  }

  async dispose(): Promise<void> {
    for (const s of this.sessions.values()) s.close();
    this.sessions.clear();
    await this.folders.dispose();
  }
}
