// The agent side of the host, as the contract's chat, approvals and settings channels see it: the
// model settings (modelSettings.ts), the sessions of each workspace (chatSessions.ts), their
// requests, each handed to the session's runner (requests.ts), the approval queue as cards
// (approvals.ts) and the request-level undo. Knows nothing of transports.
import path from 'node:path';
import { McpSignInStore } from '../services/mcp/signInStore';
import { mcpSignInItem, systemKeyStore } from '../services/settings/keyStore';
import { settingsSecrets } from '../services/settings/secrets';
import { checkFormat, exportFileName, exportSession, workspaceName } from './sessionExport';
import type {
  ApprovalRequestView,
  ChatSessionSummary,
  ChatSessionView,
  EditsModeName,
  HostEvents,
  LlmProbe,
  LlmSettingsView,
  MentionItem,
  Params,
  SandboxStatusView,
  SlashCommandsView,
  SystemPromptView,
  UndoPreviewView,
  UndoResultView,
} from '../../shared/contract';
import { InvalidArgumentError } from '../errors';
import { nullLogger, type Logger } from '../services/log/logger';
import { DEFAULT_BASE_URL, knownProfile } from '../agent/llm/profile';
import { workspacePromptSource } from '../agent/prompts/workspacePrompt';
import { LoupeRunner } from '../agent/runner/loupeRunner';
import { lazyHostedRunner } from '../agent/runner/lazyHostedRunner';
import { LOUPE_AGENT } from '../services/config/agentsConfig';
import type { SessionRunner } from '../agent/runner/types';
import { createToolRegistry, type ToolRegistry } from '../agent/tools/registry';
import type { EditorBuffers } from '../agent/tools/types';
import { mcpTools } from '../agent/tools/mcpTool';
import { ConfigMalformedError, describeProblem } from '../services/permissions/errors';
import { CONFIG_REL } from '../services/permissions/projectConfig';
import type { UserSettings } from '../services/settings/userSettings';
import type { WorkspaceServices } from '../services/workspaceServices';
import { rollbackGroup, undoRequests, type UndoScope } from '../services/modlog/groupRollback';
import { foreseeFiles, groupLanded } from '../agent/edit/foresee';
import { Approvals } from './approvals';
import { ChatSessions, type LiveSession, type WorkspaceChats } from './chatSessions';
import { DeltaBatcher } from './deltaBatcher';
import { envInt, type LlmSettingsFileOptions } from './llmSettings';
import { findMentions } from './mentions';
import { listSlashCommands } from '../services/commands/list';
import { ModelSettings } from './modelSettings';
import { savePlan } from './plans';
import { Requests, type Started } from './requests';
import { SubagentHost, type Isolation } from './subagents';
import type { LlmConfig } from '../agent/llm/config';
import { redoPreview, undoneRequests, undoPreview } from './undo';

type Emit = <E extends keyof HostEvents>(event: E, payload: HostEvents[E]) => void;

export interface AgentHostOptions {
  /** The host's one reader and writer of settings.json. */
  user: UserSettings;
  emit: Emit;
  /** The open workspace's services; throws NO_WORKSPACE when none. */
  services: () => WorkspaceServices;
  env?: NodeJS.ProcessEnv;
  /** Where the API key is kept: the OS keychain, and the desktop app's reader of old sealed keys. */
  keys?: LlmSettingsFileOptions;
  /**
   * The model requests use, instead of the settings file: a remote host's, given in memory by the
   * window's machine (its key is never written there).
   */
  model?: () => Promise<LlmConfig | null>;
  /** Tests: the tools the agent may call. */
  registry?: ToolRegistry;
  /** Where tool crashes and config problems are written (the user's log file). */
  logger?: Logger;
  /** The log file, shown in the settings dialog. */
  logFile?: string;
  /** The worktree name of an attached folder's services, for approval cards to name it. */
  worktreeOf?: (services: WorkspaceServices) => string | undefined;
  /**
   * Chat events joined per 16 ms (the default: a window draws them) or sent one by one as the
   * runner emits them (`loupe run`, which prints each as it comes).
   */
  joinDeltas?: boolean;
  /** Makes a worktree for a subagent that asks for isolation (the app's worktree sessions); absent: refused. */
  isolate?: (name: string) => Promise<Isolation>;
  /** The person's editor's copy of files for a session's tools, where its client offers one (`loupe acp`). */
  editorBuffers?: (sessionId: string) => EditorBuffers | undefined;
}

export class AgentHost {
  readonly settings: ModelSettings;
  private readonly sessions: ChatSessions;
  private readonly requests: Requests;
  private readonly approvals: Approvals;
  private readonly subagents: SubagentHost;
  private readonly env: NodeJS.ProcessEnv;
  private readonly registry: ToolRegistry;
  /** Every chat event goes out through it: tokens joined, order kept (deltaBatcher.ts). */
  private readonly deltas: DeltaBatcher;

  constructor(private readonly opts: AgentHostOptions) {
    const send = (session_id: string, event: HostEvents['chat.event']['event']) => opts.emit('chat.event', { session_id, event });
    this.deltas = new DeltaBatcher(send, opts.joinDeltas === false ? 0 : undefined);
    this.env = opts.env ?? process.env;
    this.settings = new ModelSettings({ user: opts.user, env: this.env, keys: opts.keys, logFile: opts.logFile });
    this.registry = opts.registry ?? createToolRegistry();
    this.sessions = new ChatSessions({
      emit: opts.emit,
      services: opts.services,
      tools: (w) => this.tools(w),
      flush: () => this.deltas.flush(),
      onWorkspace: (w) =>
        w.services.queue.onEvent(() => {
          if (this.sessions.isOpenFolder(w)) this.opts.emit('approvals.changed', { requests: this.approvals.list(w) });
        }),
    });
    this.approvals = new Approvals({ sessions: this.sessions, worktreeOf: opts.worktreeOf });
    this.requests = new Requests({ sessions: this.sessions, deltas: this.deltas, runner: (w, s) => this.runnerFor(w, s), tools: (w) => this.tools(w) });
    this.subagents = new SubagentHost({
      sessions: this.sessions,
      requests: this.requests,
      model: (name) => this.childModel(name),
      noModel: () => this.settings.noModel(),
      savePlan,
      logger: this.logger,
      ...(opts.isolate ? { isolate: opts.isolate } : {}),
    });
  }

  /** A subagent's model: the one its definition names when the person's model table has it, else the session's. */
  private async childModel(name?: string): Promise<LlmConfig | null> {
    const base = await this.modelConfig();
    if (!name || !base || name === base.model) return base;
    const named = await this.settings.config({ base_url: '', model: name });
    return named?.modelRow ? named : base;
  }

  private get logger(): Logger {
    return this.opts.logger ?? nullLogger;
  }

  /** Loupe's tools and those of the workspace's MCP servers (and the session's own), as they are at each use. */
  private tools(w: WorkspaceChats, sessionId?: string): ToolRegistry {
    return this.registry.withTools(() => mcpTools(w.services.mcp, sessionId));
  }

  /** The tools a session's requests are offered: their facts name what each call is. */
  toolsFor(sessionId: string): ToolRegistry {
    return this.tools(this.sessions.wsFor(sessionId), sessionId);
  }

  /**
   * The runner of a session, by the agent it belongs to: another agent hosted over ACP, or Loupe's
   * own loop over the workspace's tools and the configured model.
   */
  private runnerFor(w: WorkspaceChats, s: LiveSession): SessionRunner {
    const sessionId = s.record.id;
    if (s.record.hosted_agent && s.record.hosted_agent !== LOUPE_AGENT) {
      return lazyHostedRunner({
        services: w.services,
        agent: s.record.hosted_agent,
        sessionId,
        agentSession: { get: () => s.record.agent_session, set: (id) => (s.record.agent_session = id) },
        logger: this.logger,
      });
    }
    const buffers = this.opts.editorBuffers?.(sessionId);
    return new LoupeRunner({
      services: w.services,
      files: s.files,
      tools: () => this.tools(w, sessionId),
      // The settings' model, or the one chosen for this session.
      model: async () => {
        const config = await this.modelConfig();
        return config && s.model ? { ...config, model: s.model } : config;
      },
      noModel: () => this.settings.noModel(),
      logger: this.logger,
      maxTurns: envInt(this.env.LOUPE_MAX_TURNS),
      savePlan: (c, text) => savePlan(w.services, sessionId, c, text),
      children: this.subagents.factory(w, s, 0),
      ...(buffers ? { buffers } : {}),
    });
  }

  /** The model for a request now: the one given in memory, else the settings'. */
  private modelConfig(): Promise<LlmConfig | null> {
    return this.opts.model ? this.opts.model() : this.settings.config();
  }

  /** Requests running now (a remote host stays up while there are any). */
  runningCount(): number {
    return this.sessions.runningCount();
  }

  /** Reads the settings and the open folder's config now, so their problems are said at once. */
  async checkConfig(): Promise<void> {
    this.opts.user.permissions();
    await this.sessions.ws().services.project.load();
  }

  // ---- worktree sessions --------------------------------------------------------------------

  /**
   * Takes another folder's services (a worktree of the open folder) beside the open folder's:
   * its sessions run their own requests over them, and its questions wait in the open folder's queue.
   */
  attach(services: WorkspaceServices): void {
    this.sessions.attach(services);
  }

  sessionIn(services: WorkspaceServices, opts: { fresh?: boolean } = {}): Promise<string> {
    return this.sessions.sessionIn(services, opts);
  }

  sessionState(sessionId: string): { title: string; running: boolean; requests: number } | null {
    return this.sessions.state(sessionId);
  }

  waitingSessions(): Set<string> {
    return this.approvals.waitingSessions();
  }

  // ---- settings ----------------------------------------------------------------------------

  getSettings(): Promise<LlmSettingsView> {
    return this.settings.view();
  }

  saveSettings(p: Params<'settings.save'>): Promise<LlmSettingsView> {
    return this.settings.save(p);
  }

  models(probe: LlmProbe | void): Promise<{ models: string[] }> {
    return this.settings.models(probe);
  }

  test(probe: LlmProbe | void) {
    return this.settings.test(probe);
  }

  async editsMode(): Promise<{ mode: EditsModeName }> {
    return { mode: (await this.sessions.ws().services.project.load()).editsMode ?? 'review' };
  }

  async setEditsMode(p: Params<'settings.setEditsMode'>): Promise<{ mode: EditsModeName }> {
    if (p?.mode !== 'review' && p?.mode !== 'ask') throw new InvalidArgumentError(`mode must be "review" or "ask" (got ${JSON.stringify(p?.mode)}).`);
    try {
      await this.sessions.ws().services.project.setEditsMode(p.mode);
    } catch (err) {
      if (err instanceof ConfigMalformedError) throw new InvalidArgumentError(`${CONFIG_REL} could not be updated: ${describeProblem(err.problem)}. Fix the file, then try again.`);
      throw err;
    }
    return this.editsMode();
  }

  async sandboxStatus(): Promise<SandboxStatusView> {
    const services = this.opts.services();
    return { ...(await services.sandboxStatus()), network_log: [...services.networkLog].reverse().slice(0, 20) };
  }

  /**
   * The values the person's settings hold that may be secrets: the API key wherever it is kept,
   * MCP servers' env and headers, sign-ins (the keychain's too), hooks' headers. An export leaves them out.
   */
  async secrets(): Promise<string[]> {
    const config = (await this.settings.config().catch(() => null)) ?? (await this.settings.config({ model: 'unset' }).catch(() => null));
    const user = this.opts.user;
    const signIns = new McpSignInStore(user, (url) => systemKeyStore(path.dirname(user.file), process.platform, this.env, mcpSignInItem(url)));
    return settingsSecrets({ user, env: this.env, apiKey: config && config.apiKey !== 'no-key' ? config.apiKey : null, signIn: (url) => signIns.mcpSignIn(url) });
  }

  /** A session as Markdown or JSON (sessionExport.ts), without the settings' secrets. */
  async exportSession(p: Params<'chat.export'>): Promise<{ file_name: string; text: string }> {
    const format = checkFormat(p?.format);
    if (typeof p?.session_id !== 'string' || !p.session_id) throw new InvalidArgumentError('session_id is needed: which session to export.');
    const w = this.sessions.wsFor(p.session_id);
    const s = await this.sessions.session(w, p.session_id);
    // What the chat shows: a session saved before transcripts were kept gets one from its messages.
    this.sessions.entries(w, s);
    return exportSession({ record: s.record, modlog: w.services.modlog, workspace: workspaceName(w.services.root), secrets: await this.secrets() }, format);
  }

  /** The name a session's export is saved under. */
  async exportName(sessionId: string, format: 'md' | 'json'): Promise<string> {
    const s = await this.sessions.session(this.sessions.wsFor(sessionId), sessionId);
    return exportFileName(s.record, format);
  }

  /** What the session's model was last told, or before any request what it would be told now. */
  async systemPrompt(p: Params<'chat.systemPrompt'>): Promise<SystemPromptView & { sent: boolean }> {
    const w = this.sessions.wsFor(p?.session_id);
    const s = typeof p?.session_id === 'string' && p.session_id ? await this.sessions.session(w, p.session_id) : null;
    if (s?.prompt) return { ...s.prompt, sent: true };
    const config = await this.modelConfig();
    const source = workspacePromptSource(w.services, this.tools(w));
    const model = config ? { name: config.model, profile: knownProfile(config.baseURL ?? DEFAULT_BASE_URL)?.view() } : undefined;
    return { ...(await source.build(await source.environment(), { messages: s?.record.messages ?? [], model })), sent: false };
  }

  /** The `/` picker's and the settings' commands and skills (services/commands/list.ts). */
  slashCommands(): Promise<SlashCommandsView> {
    return listSlashCommands(this.sessions.ws().services);
  }

  /** The `@` picker's entries (mentions.ts). */
  async mentions(p: Params<'chat.mentions'>): Promise<{ items: MentionItem[] }> {
    if (typeof p?.query !== 'string') throw new InvalidArgumentError('query must be a string');
    return { items: await findMentions(this.sessions.ws().services, p.query, Number(p.limit) || undefined) };
  }

  // ---- approvals ---------------------------------------------------------------------------

  listApprovals(): ApprovalRequestView[] {
    return this.approvals.list();
  }

  answer(p: Params<'approvals.answer'>): Promise<{ answered: boolean }> {
    return this.approvals.answer(p);
  }

  // ---- sessions ----------------------------------------------------------------------------

  /** A new session, for Loupe's own agent or (`agent`) one the workspace's `agents` name. */
  async newSession(agent?: string): Promise<ChatSessionSummary> {
    const w = this.sessions.ws();
    if (agent !== undefined && agent !== LOUPE_AGENT) {
      const { decls } = await w.services.hostedAgents.declared();
      if (!decls.some((d) => d.name === agent)) await w.services.hostedAgents.check(agent);
    }
    return this.sessions.summary(w, this.sessions.create(w, agent).record);
  }

  renameSession(id: string, title: string): Promise<ChatSessionSummary> {
    return this.sessions.rename(id, title);
  }

  deleteSession(id: string): Promise<void> {
    return this.sessions.delete(id);
  }

  listSessions(): Promise<ChatSessionSummary[]> {
    return this.sessions.list();
  }

  getSession(id: string): Promise<ChatSessionView> {
    return this.sessions.view(id);
  }

  /** The model a session's next requests use instead of the settings' (null: the settings' again). */
  async setSessionModel(id: string, model: string | null): Promise<void> {
    const s = await this.sessions.session(this.sessions.wsFor(id), id);
    if (model?.trim()) s.model = model.trim();
    else delete s.model;
  }

  // ---- requests ----------------------------------------------------------------------------

  async send(p: Params<'chat.send'>): Promise<{ session_id: string; correlation_id: string }> {
    const { session_id, correlation_id } = await this.requests.send(p);
    return { session_id, correlation_id };
  }

  /** A request whose end the caller awaits (`loupe run`): `finished` settles with its status once its session is saved. */
  request(p: Params<'chat.send'>): Promise<Started> {
    return this.requests.send(p);
  }

  enqueue(p: Params<'chat.enqueue'>): Promise<{ id: string; correlation_id?: string }> {
    return this.requests.enqueue(p);
  }

  queueEdit(p: Params<'chat.queueEdit'>): Promise<void> {
    return this.requests.queueEdit(p);
  }

  queueRemove(p: Params<'chat.queueRemove'>): Promise<void> {
    return this.requests.queueRemove(p);
  }

  sendNow(p: Params<'chat.sendNow'>): Promise<{ correlation_id?: string }> {
    return this.requests.sendNow(p);
  }

  async edit(p: Params<'chat.edit'>): Promise<{ session_id: string; correlation_id: string }> {
    const { session_id, correlation_id } = await this.requests.edit(p);
    return { session_id, correlation_id };
  }

  switchBranch(p: Params<'chat.switchBranch'>): Promise<ChatSessionView> {
    return this.requests.switchBranch(p);
  }

  stop(sessionId: string): Promise<void> {
    return this.requests.stop(sessionId);
  }

  /** Stops one subagent of the session's running request; the request and its other subagents go on. */
  stopAgent(p: Params<'chat.stopAgent'>): Promise<void> {
    if (typeof p?.session_id !== 'string' || typeof p?.agent_id !== 'string') throw new InvalidArgumentError('session_id and agent_id must be strings');
    return this.subagents.stopAgent(p.session_id, p.agent_id);
  }


  // ---- undo ---------------------------------------------------------------------------------

  /** The request and every later one of the session, as "undo changes from here" covers them. */
  private async undoScope(w: WorkspaceChats, sessionId: string, correlationId: string): Promise<UndoScope> {
    const s = await this.sessions.session(w, sessionId);
    if (s.running) throw new InvalidArgumentError('The agent is still working in this session. Stop it first, then undo.');
    const at = s.record.requests.findIndex((r) => r.correlation_id === correlationId);
    if (at === -1) throw new InvalidArgumentError(`No finished request ${correlationId} in this session.`);
    return { sessionId: s.record.id, correlations: s.record.requests.slice(at).map((r) => r.correlation_id) };
  }

  async undoPreview(p: Params<'chat.undoPreview'>): Promise<UndoPreviewView> {
    const w = this.sessions.wsFor(p.session_id);
    return undoPreview(w.services.modlog, await this.undoScope(w, p.session_id, p.correlation_id));
  }

  async undo(p: Params<'chat.undo'>): Promise<UndoResultView> {
    if (p.on_conflict !== 'skip' && p.on_conflict !== 'refuse') throw new InvalidArgumentError('on_conflict must be "skip" or "refuse".');
    const w = this.sessions.wsFor(p.session_id);
    const scope = await this.undoScope(w, p.session_id, p.correlation_id);
    // What the undo leaves each file with is foreseen by the language servers and kept on its lines.
    // An answer that comes after the bound is kept as a fact of the line it was about.
    const seen = foreseeFiles(w.services.lsp, { modlog: w.services.modlog, logger: this.logger });
    const out = await seen.land(
      () => undoRequests(w.services.modlog, scope, { onConflict: p.on_conflict, tool: 'undo', digest: p.digest, reason: `undo from request ${p.correlation_id}`, confirm: seen.confirm }),
      (done) => groupLanded(w.services.modlog, done.group_id),
    );
    return { group_id: out.group_id, files: out.files, rolled_back: out.rolled_back.length, skipped: out.skipped.map(({ file, why }) => ({ file, why })) };
  }

  /** The undo still in effect that started from this request: its group is what Redo reverses. */
  private async undoneGroup(w: WorkspaceChats, scope: UndoScope): Promise<string> {
    const undone = await undoneRequests(w.services.modlog, scope.sessionId, scope.correlations);
    const group = undone.find((u) => u.correlation_id === scope.correlations[0])?.group_id;
    if (!group) throw new InvalidArgumentError('Nothing to redo: this request has no undo in effect (it was redone, or never undone).');
    return group;
  }

  async redoPreview(p: Params<'chat.redoPreview'>): Promise<UndoPreviewView> {
    const w = this.sessions.wsFor(p.session_id);
    const scope = await this.undoScope(w, p.session_id, p.correlation_id);
    return redoPreview(w.services.modlog, await this.undoneGroup(w, scope), scope);
  }

  /** Applies the previewed redo: the undo's group rolled back, as the review's rollback of it would. */
  async redo(p: Params<'chat.redo'>): Promise<UndoResultView> {
    if (p.on_conflict !== 'skip' && p.on_conflict !== 'refuse') throw new InvalidArgumentError('on_conflict must be "skip" or "refuse".');
    const w = this.sessions.wsFor(p.session_id);
    const scope = await this.undoScope(w, p.session_id, p.correlation_id);
    const group = await this.undoneGroup(w, scope);
    const seen = foreseeFiles(w.services.lsp, { modlog: w.services.modlog, logger: this.logger });
    const out = await seen.land(
      () => rollbackGroup(w.services.modlog, group, { sessionId: scope.sessionId, onConflict: p.on_conflict, tool: 'redo', digest: p.digest, reason: 'redo', confirm: seen.confirm }),
      (done) => groupLanded(w.services.modlog, done.group_id),
    );
    return { group_id: out.group_id, files: out.files, rolled_back: out.rolled_back.length, skipped: out.skipped.map(({ file, why }) => ({ file, why })) };
  }

  // ---- lifecycle ---------------------------------------------------------------------------

  /** Another folder was opened: this one's requests stop and its questions go with them. */
  release(services: WorkspaceServices): Promise<void> {
    return this.sessions.release(services);
  }

  /** Stops every request and waits until their sessions are saved: quitting loses no turn. */
  async dispose(): Promise<void> {
    await this.sessions.dispose();
    this.deltas.flush();
  }
}
