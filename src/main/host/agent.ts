// The agent side of the host: the model settings, one permission gate per
// workspace whose questions become approval cards, and one agent loop per chat session whose
// events stream to the chat pane. Knows nothing of transports.
import type {
  ApprovalRequestView,
  ChatMode,
  ChatSessionSummary,
  ChatSessionView,
  ChatTranscriptEntry,
  EditsModeName,
  HostEvents,
  LlmProbe,
  LlmSettingsView,
  MentionItem,
  ModelFactsView,
  ModelSettingsRow,
  Params,
  SandboxStatusView,
  UndoPreviewView,
  UndoResultView,
  SystemPromptView,
} from '../../shared/contract';
import { InvalidArgumentError, toWireError } from '../errors';
import { LlmEditCorrector } from '../agent/edit/corrector';
import { nullLogger, type Logger } from '../services/log/logger';
import { LlmClient } from '../agent/llm/client';
import { resolveLlmConfig, type LlmConfig, type ModelRow } from '../agent/llm/config';
import type { ModelFacts } from '../agent/llm/modelFacts';
import { MODEL_PRESETS } from '../agent/llm/presets';
import { sessionUsageFrom } from '../agent/loop/usage';
import { checkAttachments, resolveAttachments } from './attachments';
import { findMentions } from './mentions';
import { detectLocalServers, describeDetected } from '../agent/llm/detect';
import { NoModelError } from '../agent/llm/errors';
import { DEFAULT_BASE_URL, knownProfile } from '../agent/llm/profile';
import { createJsonChat } from '../agent/llm/jsonChat';
import type { ChatMessage } from '../agent/llm/types';
import { Agent, newCorrelationId } from '../agent/loop/agentLoop';
import { workspacePromptSource } from '../agent/prompts/workspacePrompt';
import { createToolRegistry, type ToolRegistry } from '../agent/tools/registry';
import { mcpTools } from '../agent/tools/mcpTool';
import { FileSession } from '../services/files/readTracker';
import type { ApprovalQueue } from '../services/permissions/approvalQueue';
import type { PermissionGate } from '../services/permissions/permissionGate';
import { ConfigMalformedError, describeProblem } from '../services/permissions/errors';
import { CONFIG_REL, type ProjectConfig } from '../services/permissions/projectConfig';
import { titleFrom, type SessionRecord, type SessionStore } from '../services/sessions/sessionStore';
import { checkedBranches, forkAt, forksOf, shiftIndexes, switchTo, type ChatRecord } from './branches';
import { MessageQueue } from './messageQueue';
import { savePlan } from './plans';
import type { UserSettings } from '../services/settings/userSettings';
import type { WorkspaceServices } from '../workspace/compose';
import { LlmSettingsFile, savedAsLlmSettings, type LlmSettingsFileOptions } from './llmSettings';
import { checkedEntries, entriesFromMessages, keepEntry } from './transcript';
import { undoneRequests, undoPreview } from './undo';
import { undoRequests, type UndoScope } from '../services/modlog/groupRollback';
import { foreseeFiles } from '../agent/edit/foresee';
import { DeltaBatcher } from './deltaBatcher';

type Emit = <E extends keyof HostEvents>(event: E, payload: HostEvents[E]) => void;

interface LiveSession {
  record: ChatRecord;
  files: FileSession;
  running: { correlationId: string; abort: AbortController; done: Promise<void> } | null;
  /** The system prompt as last sent in this session (kept while the host runs). */
  prompt: SystemPromptView | null;
  /** Messages sent while it works (kept while the host runs). */
  queue: MessageQueue;
}

/** What a request is asked to do: the person's words, the mode, and the plan it executes. */
interface RequestSpec {
  text: string;
  mode: ChatMode;
  /** The correlation id of a plan-mode request whose plan this one executes. */
  plan?: string;
  /** Files, folders, a selection or images sent with the words (checked when the request starts). */
  attachments?: unknown;
}

const modeOf = (m: unknown): ChatMode => {
  if (m === undefined || m === 'act' || m === 'plan') return m ?? 'act';
  throw new InvalidArgumentError(`mode must be "act" or "plan" (got ${JSON.stringify(m)}).`);
};
const textOf = (t: unknown): string => {
  if (typeof t !== 'string' || !t.trim()) throw new InvalidArgumentError('Type a message first.');
  return t;
};

/** What the agent keeps for one workspace: its live chats, over the workspace's own services. */
class WorkspaceAgent {
  readonly queue: ApprovalQueue;
  readonly project: ProjectConfig;
  readonly gate: PermissionGate;
  readonly store: SessionStore;
  readonly live = new Map<string, LiveSession>();

  constructor(readonly services: WorkspaceServices) {
    this.queue = services.queue;
    this.project = services.project;
    this.gate = services.permissions;
    this.store = services.sessions;
  }
}

export interface AgentHostOptions {
  /** The host's one reader and writer of settings.json. */
  user: UserSettings;
  emit: Emit;
  /** The open workspace's services; throws NO_WORKSPACE when none. */
  services: () => WorkspaceServices;
  env?: NodeJS.ProcessEnv;
  /** Where the API key is kept: the OS keychain, and the desktop app's reader of old sealed keys. */
  keys?: LlmSettingsFileOptions;
  /** Tests: the tools the agent may call. */
  registry?: ToolRegistry;
  /** Where tool crashes and config problems are written (the user's log file). */
  logger?: Logger;
  /** The log file, shown in the settings dialog. */
  logFile?: string;
  /** The worktree name of an attached folder's services, for approval cards to name it. */
  worktreeOf?: (services: WorkspaceServices) => string | undefined;
}

export class AgentHost {
  private readonly settings: LlmSettingsFile;
  private readonly workspaces = new Map<WorkspaceServices, WorkspaceAgent>();
  private readonly env: NodeJS.ProcessEnv;
  private readonly registry: ToolRegistry;
  /** Every chat event goes out through it: tokens joined, order kept (deltaBatcher.ts). */
  private readonly deltas: DeltaBatcher;

  constructor(private readonly opts: AgentHostOptions) {
    this.deltas = new DeltaBatcher((session_id, event) => opts.emit('chat.event', { session_id, event }));
    this.settings = new LlmSettingsFile(opts.user, opts.keys);
    this.env = opts.env ?? process.env;
    this.registry = opts.registry ?? createToolRegistry();
  }

  private get logger(): Logger {
    return this.opts.logger ?? nullLogger;
  }

  private ws(): WorkspaceAgent {
    const services = this.opts.services();
    let w = this.workspaces.get(services);
    if (!w) {
      const created = new WorkspaceAgent(services);
      created.queue.onEvent(() => {
        if (this.workspaces.get(this.opts.services()) === created) this.opts.emit('approvals.changed', { requests: this.approvals(created) });
      });
      this.workspaces.set(services, created);
      w = created;
    }
    return w;
  }

  /** Reads the settings and the open folder's config now, so their problems are said at once. */
  async checkConfig(): Promise<void> {
    this.opts.user.permissions();
    await this.ws().project.load();
  }

  /** The one queue's questions, each naming its session (and that session's worktree) when a chat asked. */
  private approvals(w: WorkspaceAgent): ApprovalRequestView[] {
    return w.queue.list().map((r) => {
      const owner = r.session_id ? this.holder(r.session_id) : undefined;
      const title = owner?.live.get(r.session_id!)?.record.title;
      const worktree = owner && owner !== w ? this.opts.worktreeOf?.(owner.services) : undefined;
      return { ...r, always: r.always.map((a) => ({ ...a })), ...(title ? { session_title: title } : {}), ...(worktree ? { worktree } : {}) };
    });
  }

  /** The workspace whose live sessions hold `sessionId` (the open folder's or a worktree's), if any. */
  private holder(sessionId: string): WorkspaceAgent | undefined {
    for (const w of this.workspaces.values()) if (w.live.has(sessionId)) return w;
    return undefined;
  }

  /** The workspace a session's request goes to: the one that holds it, else the open folder. */
  private wsFor(sessionId: string | undefined): WorkspaceAgent {
    return (sessionId ? this.holder(sessionId) : undefined) ?? this.ws();
  }

  /**
   * Takes another folder's services (a worktree of the open folder) beside the open folder's:
   * its sessions run their own loops over them, and its questions wait in the open folder's queue.
   */
  attach(services: WorkspaceServices): void {
    if (!this.workspaces.has(services)) this.workspaces.set(services, new WorkspaceAgent(services));
  }

  /** A session in an attached folder: the latest saved one (made live, so requests find it), or a new one. */
  async sessionIn(services: WorkspaceServices, opts: { fresh?: boolean } = {}): Promise<string> {
    this.attach(services);
    const w = this.workspaces.get(services)!;
    if (!opts.fresh) {
      const live = [...w.live.values()].at(-1);
      if (live) return live.record.id;
      const saved = (await w.store.list()).sort((a, b) => b.updated_at.localeCompare(a.updated_at))[0];
      if (saved) return (await this.session(w, saved.id)).record.id;
    }
    const record = w.store.create<ChatMessage>();
    w.live.set(record.id, this.live(w, record));
    return record.id;
  }

  /** What the sidebar shows of a session: its title, and whether a request runs. */
  sessionState(sessionId: string): { title: string; running: boolean } | null {
    const s = this.holder(sessionId)?.live.get(sessionId);
    return s ? { title: s.record.title, running: s.running !== null } : null;
  }

  /** Session ids of the approvals waiting now. */
  waitingSessions(): Set<string> {
    const out = new Set<string>();
    for (const w of this.workspaces.values()) for (const r of w.queue.list()) if (r.session_id) out.add(r.session_id);
    return out;
  }

  // ---- settings ----------------------------------------------------------------------------

  private async config(probe?: LlmProbe | void): Promise<LlmConfig | null> {
    const saved = await this.settings.read();
    const p = probe ?? {};
    const fromSaved = savedAsLlmSettings(saved);
    return resolveLlmConfig(
      {
        ...fromSaved,
        baseURL: p.base_url?.trim() || fromSaved.baseURL,
        apiKey: p.api_key || fromSaved.apiKey,
        model: p.model?.trim() || fromSaved.model,
      },
      this.env,
    );
  }

  /**
   * The configured model's facts as known now; its server's /models is read in the background
   * (never awaited: settings are asked for while a folder opens), so the next answer has them.
   */
  private factsNow(config: LlmConfig): ModelFactsView {
    const client = new LlmClient(config, { timeoutMs: 10_000 });
    void client.serverModel().catch(() => undefined);
    return factsView(client.cachedFacts());
  }

  async getSettings(): Promise<LlmSettingsView> {
    const saved = await this.settings.read();
    const config = await this.config();
    const detected = await detectLocalServers({ timeoutMs: 300 });
    const models: ModelSettingsRow[] = Object.entries(saved.models ?? {}).map(([model, row]) => ({ model, ...row }));
    const fromSettings = Boolean(saved.base_url || saved.model);
    const profile = config ? knownProfile(config.baseURL ?? DEFAULT_BASE_URL)?.describe() : undefined;
    return {
      base_url: saved.base_url ?? this.env.OPENAI_BASE_URL ?? '',
      model: saved.model ?? this.env.LOUPE_MODEL ?? '',
      ...(saved.context_tokens ? { context_tokens: saved.context_tokens } : {}),
      models,
      ...(config ? { model_facts: this.factsNow(config) } : {}),
      presets: MODEL_PRESETS.map((p) => ({ ...p })),
      has_api_key: Boolean(saved.api_key || this.env.OPENAI_API_KEY),
      ...(saved.key_where ? { api_key_where: saved.key_where } : this.env.OPENAI_API_KEY ? { api_key_where: 'the OPENAI_API_KEY environment variable' } : {}),
      ...(saved.key_problem ? { api_key_problem: saved.key_problem } : {}),
      source: fromSettings ? 'settings' : this.env.LOUPE_MODEL || this.env.OPENAI_BASE_URL ? 'env' : 'none',
      configured: config !== null,
      detected: detected.map((d) => ({ name: d.name, base_url: d.baseURL, models: d.models })),
      ...(profile ? { endpoint_profile: profile } : {}),
      ...(this.opts.logFile ? { log_file: this.opts.logFile } : {}),
    };
  }

  async editsMode(): Promise<{ mode: EditsModeName }> {
    return { mode: (await this.ws().project.load()).editsMode ?? 'review' };
  }

  async sandboxStatus(): Promise<SandboxStatusView> {
    const services = this.opts.services();
    return { ...(await services.sandboxStatus()), network_log: [...services.networkLog].reverse().slice(0, 20) };
  }

  /** What the session's model was last told, or before any request what it would be told now. */
  async systemPrompt(p: Params<'chat.systemPrompt'>): Promise<SystemPromptView & { sent: boolean }> {
    const w = this.wsFor(p?.session_id);
    const s = typeof p?.session_id === 'string' && p.session_id ? await this.session(w, p.session_id) : null;
    if (s?.prompt) return { ...s.prompt, sent: true };
    const config = await this.config();
    const source = workspacePromptSource(w.services, this.tools(w));
    const model = config ? { name: config.model, profile: knownProfile(config.baseURL ?? DEFAULT_BASE_URL)?.view() } : undefined;
    return { ...(await source.build(await source.environment(), { messages: s?.record.messages ?? [], model })), sent: false };
  }

  async setEditsMode(p: Params<'settings.setEditsMode'>): Promise<{ mode: EditsModeName }> {
    if (p?.mode !== 'review' && p?.mode !== 'ask') throw new InvalidArgumentError(`mode must be "review" or "ask" (got ${JSON.stringify(p?.mode)}).`);
    try {
      await this.ws().project.setEditsMode(p.mode);
    } catch (err) {
      if (err instanceof ConfigMalformedError) throw new InvalidArgumentError(`${CONFIG_REL} could not be updated: ${describeProblem(err.problem)}. Fix the file, then try again.`);
      throw err;
    }
    return this.editsMode();
  }

  async saveSettings(p: Params<'settings.save'>): Promise<LlmSettingsView> {
    if (typeof p?.base_url !== 'string' || typeof p.model !== 'string') throw new InvalidArgumentError('base_url and model must be strings');
    if (p.base_url.trim() && !/^https?:\/\//i.test(p.base_url.trim())) throw new InvalidArgumentError(`The base URL must start with http:// or https:// (got ${JSON.stringify(p.base_url)}).`);
    if (p.context_tokens !== undefined && p.context_tokens !== null && !(Number.isInteger(p.context_tokens) && p.context_tokens > 0)) {
      throw new InvalidArgumentError('context_tokens must be a positive whole number');
    }
    const models = p.models === undefined ? undefined : modelTable(p.models);
    await this.settings.update({
      base_url: p.base_url.trim() || undefined,
      model: p.model.trim() || undefined,
      context_tokens: p.context_tokens || undefined,
      ...(models ? { models: Object.keys(models).length ? models : undefined } : {}),
      ...(p.api_key !== undefined ? { api_key: p.api_key || undefined } : {}),
    });
    return this.getSettings();
  }

  private async probeClient(probe: LlmProbe | void): Promise<LlmClient> {
    const config = (await this.config(probe)) ?? (await this.config({ ...(probe ?? {}), model: 'unset' }));
    if (!config?.baseURL) throw new NoModelError();
    return new LlmClient(config, { timeoutMs: 10_000, retry: { maxRetries: 0 } });
  }

  async models(probe: LlmProbe | void): Promise<{ models: string[] }> {
    return { models: await (await this.probeClient(probe)).listModels() };
  }

  /** Lists the models, then (when a model is named) asks it one tiny question. */
  async test(probe: LlmProbe | void) {
    const named = Boolean((probe && probe.model?.trim()) || (await this.config())?.model);
    const r = await (await this.probeClient(probe)).testConnection(undefined, { ask: named });
    return { ok: r.ok, models: r.models, latency_ms: r.latencyMs, ...(r.error ? { error: r.error } : {}), ...(r.reply !== undefined ? { reply: r.reply } : {}) };
  }

  /** The `@` picker's entries (mentions.ts). */
  async mentions(p: Params<'chat.mentions'>): Promise<{ items: MentionItem[] }> {
    if (typeof p?.query !== 'string') throw new InvalidArgumentError('query must be a string');
    return { items: await findMentions(this.ws().services, p.query, Number(p.limit) || undefined) };
  }

  // ---- approvals ---------------------------------------------------------------------------

  /** Loupe's tools and those of the workspace's MCP servers, as they are at each use. */
  private tools(w: WorkspaceAgent): ToolRegistry {
    return this.registry.withTools(() => mcpTools(w.services.mcp));
  }

  listApprovals(): ApprovalRequestView[] {
    return this.approvals(this.ws());
  }

  async answer(p: Params<'approvals.answer'>): Promise<{ answered: boolean }> {
    const w = this.ws();
    if (typeof p?.id !== 'string') throw new InvalidArgumentError('id must be a string');
    const req = w.queue.list().find((r) => r.id === p.id);
    if (!req) return { answered: false };
    if (p.answer === 'deny') return { answered: w.queue.answer(p.id, { answer: 'deny', ...(p.message?.trim() ? { message: p.message.trim() } : {}) }) };
    if (p.answer === 'once') return { answered: w.queue.answer(p.id, { answer: 'once' }) };
    if (p.answer !== 'always') throw new InvalidArgumentError(`answer must be once, always or deny (got ${JSON.stringify(p.answer)})`);
    if (p.scope !== undefined && p.scope !== 'project' && p.scope !== 'user') throw new InvalidArgumentError(`scope must be "project" or "user" (got ${JSON.stringify(p.scope)})`);
    // Starting a server and a server's own question are no rules: their "always" is the answer itself.
    const kind = req.kind;
    if (kind === 'mcp-server' || kind === 'elicitation') return { answered: w.queue.answer(p.id, { answer: 'always' }) };
    const proposed = req.always.map((r) => r.pattern);
    const patterns = (p.patterns ?? proposed).map((s) => s.trim()).filter(Boolean);
    if (!patterns.length) throw new InvalidArgumentError('"Allow always" needs a pattern to save.');
    if (p.scope !== 'user' && JSON.stringify(patterns) === JSON.stringify(proposed)) return { answered: w.queue.answer(p.id, { answer: 'always' }) };
    // An edited rule, or one for this person only: saved as written, and this call allowed once.
    // A card for running outside the sandbox saves rules that say so, edited or not.
    // A network card's rule keeps its host: an edited command pattern must not open every host.
    const hosts = req.always[0]?.hosts;
    const rules = patterns.map((pattern) => ({ kind, pattern, action: 'allow' as const, ...(req.sandboxed === false ? { sandbox: false } : {}), ...(hosts ? { hosts } : {}) }));
    // Saved for the folder that asked: a worktree session's rule goes to the worktree's config.
    const owner = (req.session_id ? this.holder(req.session_id) : undefined) ?? w;
    if (p.scope === 'user') await this.opts.user.addFolderRules(owner.services.root, rules);
    else await owner.project.addRules(rules);
    return { answered: w.queue.answer(p.id, { answer: 'once' }) };
  }

  // ---- sessions ----------------------------------------------------------------------------

  private summary(w: WorkspaceAgent, r: SessionRecord): ChatSessionSummary {
    return { id: r.id, title: r.title, created_at: r.created_at, updated_at: r.updated_at, requests: r.requests.length, running: Boolean(w.live.get(r.id)?.running) };
  }

  private async session(w: WorkspaceAgent, id: string): Promise<LiveSession> {
    let s = w.live.get(id);
    if (!s) {
      const record: ChatRecord = await w.store.load<ChatMessage>(id);
      record.entries = checkedEntries(record.entries);
      record.branches = checkedBranches(record.branches);
      s = w.live.get(id) ?? this.live(w, record);
      w.live.set(id, s);
    }
    return s;
  }

  private live(w: WorkspaceAgent, record: ChatRecord): LiveSession {
    const queue = new MessageQueue((messages) => {
      if (this.workspaces.get(w.services) === w) this.opts.emit('chat.queued', { session_id: record.id, messages });
    });
    return { record, files: new FileSession(record.id), running: null, prompt: null, queue };
  }

  async listSessions(): Promise<ChatSessionSummary[]> {
    const w = this.ws();
    const saved = await w.store.list();
    const ids = new Set(saved.map((s) => s.id));
    // Sessions made but not yet saved (no request finished) are listed too.
    const unsaved = [...w.live.values()].filter((s) => !ids.has(s.record.id)).map((s) => this.summary(w, s.record));
    return [...unsaved, ...saved.map((s) => ({ ...s, running: Boolean(w.live.get(s.id)?.running) }))];
  }

  async getSession(id: string): Promise<ChatSessionView> {
    const w = this.wsFor(id);
    const s = await this.session(w, id);
    const undone = await undoneRequests(w.services.modlog, s.record.id, s.record.requests.map((r) => r.correlation_id)).catch(() => []);
    // The tokens kept so far are sent before this answer and the copy holds exactly them: a
    // client that shows the session from this answer on neither misses nor repeats one.
    this.deltas.flush();
    const entries = s.record.entries?.map((e) => ({ ...e })) ?? entriesFromMessages(s.record.messages, (n, a) => this.tools(w).callFacts(n, a));
    const queued = s.queue.list();
    const forks = forksOf(s.record);
    const usage = s.record.usage?.last;
    return {
      session: this.summary(w, s.record),
      entries,
      ...(s.running ? { running_correlation_id: s.running.correlationId } : {}),
      ...(undone.length ? { undone } : {}),
      ...(queued.length ? { queued } : {}),
      ...(forks.length ? { forks } : {}),
      ...(usage ? { usage } : {}),
    };
  }

  // ---- undo ---------------------------------------------------------------------------------

  /** The request and every later one of the session, as "undo changes from here" covers them. */
  private async undoScope(w: WorkspaceAgent, sessionId: string, correlationId: string): Promise<UndoScope> {
    const s = await this.session(w, sessionId);
    if (s.running) throw new InvalidArgumentError('The agent is still working in this session. Stop it first, then undo.');
    const at = s.record.requests.findIndex((r) => r.correlation_id === correlationId);
    if (at === -1) throw new InvalidArgumentError(`No finished request ${correlationId} in this session.`);
    return { sessionId: s.record.id, correlations: s.record.requests.slice(at).map((r) => r.correlation_id) };
  }

  async undoPreview(p: Params<'chat.undoPreview'>): Promise<UndoPreviewView> {
    const w = this.wsFor(p.session_id);
    return undoPreview(w.services.modlog, await this.undoScope(w, p.session_id, p.correlation_id));
  }

  async undo(p: Params<'chat.undo'>): Promise<UndoResultView> {
    if (p.on_conflict !== 'skip' && p.on_conflict !== 'refuse') throw new InvalidArgumentError('on_conflict must be "skip" or "refuse".');
    const w = this.wsFor(p.session_id);
    const scope = await this.undoScope(w, p.session_id, p.correlation_id);
    // What the undo leaves each file with is foreseen by the language servers and kept on its lines.
    const seen = foreseeFiles(w.services.lsp);
    const out = await seen.land(() => undoRequests(w.services.modlog, scope, { onConflict: p.on_conflict, tool: 'undo', digest: p.digest, reason: `undo from request ${p.correlation_id}`, confirm: seen.confirm }));
    return { group_id: out.group_id, files: out.files, rolled_back: out.rolled_back.length, skipped: out.skipped.map(({ file, why }) => ({ file, why })) };
  }

  newSession(): ChatSessionSummary {
    const w = this.ws();
    const record = w.store.create<ChatMessage>();
    w.live.set(record.id, this.live(w, record));
    return this.summary(w, record);
  }

  async renameSession(id: string, title: string): Promise<ChatSessionSummary> {
    const w = this.wsFor(id);
    const s = await this.session(w, id);
    if (!title?.trim()) throw new InvalidArgumentError('A session title cannot be empty.');
    s.record.title = title.trim().slice(0, 200);
    await w.store.save(s.record);
    return this.summary(w, s.record);
  }

  async deleteSession(id: string): Promise<void> {
    const w = this.wsFor(id);
    const s = w.live.get(id);
    if (s?.running) {
      s.running.abort.abort();
      await s.running.done;
    }
    w.live.delete(id);
    await w.store.delete(id).catch((err) => {
      if (!s) throw err; // never saved: nothing on disk to remove
    });
  }

  // ---- requests ----------------------------------------------------------------------------

  async send(p: Params<'chat.send'>): Promise<{ session_id: string; correlation_id: string }> {
    const spec: RequestSpec = { text: textOf(p?.text), mode: modeOf(p?.mode), ...(typeof p?.plan === 'string' ? { plan: p.plan } : {}), attachments: p?.attachments };
    const w = this.wsFor(p?.session_id);
    // No model: said before a session is made for nothing.
    if (!(await this.config())) await this.noModel();
    const s = p.session_id ? await this.session(w, p.session_id) : await this.session(w, this.newSession().id);
    return this.start(w, s, spec);
  }

  /** While the agent works the message waits in the session's queue; otherwise it is sent now. */
  async enqueue(p: Params<'chat.enqueue'>): Promise<{ id: string; correlation_id?: string }> {
    const text = textOf(p?.text);
    const mode = modeOf(p?.mode);
    const w = this.wsFor(p.session_id);
    const s = await this.session(w, p.session_id);
    if (!s.running) return { id: '', correlation_id: (await this.start(w, s, { text, mode })).correlation_id };
    return { id: s.queue.add(text, mode).id };
  }

  async queueEdit(p: Params<'chat.queueEdit'>): Promise<void> {
    (await this.session(this.wsFor(p.session_id), p.session_id)).queue.edit(p.id, textOf(p.text));
  }

  async queueRemove(p: Params<'chat.queueRemove'>): Promise<void> {
    (await this.session(this.wsFor(p.session_id), p.session_id)).queue.remove(p.id);
  }

  /** "Send now": at the next tool boundary of the running request, or at once when none runs. */
  async sendNow(p: Params<'chat.sendNow'>): Promise<{ correlation_id?: string }> {
    const w = this.wsFor(p.session_id);
    const s = await this.session(w, p.session_id);
    if (s.running) {
      s.queue.steer(p.id);
      return {};
    }
    const item = s.queue.take(p.id)!;
    try {
      return { correlation_id: (await this.start(w, s, { text: item.text, mode: item.mode })).correlation_id };
    } catch (err) {
      s.queue.putBack(item);
      throw err;
    }
  }

  /** Edit and resend: the conversation forks before that request; the old branch is kept. */
  async edit(p: Params<'chat.edit'>): Promise<{ session_id: string; correlation_id: string }> {
    const spec: RequestSpec = { text: textOf(p?.text), mode: modeOf(p?.mode) };
    const w = this.wsFor(p.session_id);
    const s = await this.session(w, p.session_id);
    this.idle(s);
    if (!(await this.config())) await this.noModel();
    forkAt(s.record, p.correlation_id, this.entries(w, s));
    return this.start(w, s, spec);
  }

  async switchBranch(p: Params<'chat.switchBranch'>): Promise<ChatSessionView> {
    const w = this.wsFor(p.session_id);
    const s = await this.session(w, p.session_id);
    this.idle(s);
    switchTo(s.record, p.branch_id, this.entries(w, s));
    s.record.entries = checkedEntries(s.record.entries);
    await w.store.save(s.record);
    return this.getSession(s.record.id);
  }

  private idle(s: LiveSession): void {
    if (s.running) throw new InvalidArgumentError('The agent is still working on the last request in this session. Stop it or wait for it to finish.');
  }

  private async noModel(): Promise<never> {
    throw new NoModelError(describeDetected(await detectLocalServers({ timeoutMs: 300 })));
  }

  /** What the chat shows of the session, rebuilt from the messages for a file saved before entries were kept. */
  private entries(w: WorkspaceAgent, s: LiveSession): ChatTranscriptEntry[] {
    const tools = this.tools(w);
    return (s.record.entries ??= entriesFromMessages(s.record.messages, (n, a) => tools.callFacts(n, a)));
  }

  private async start(w: WorkspaceAgent, s: LiveSession, spec: RequestSpec): Promise<{ session_id: string; correlation_id: string }> {
    this.idle(s);
    const config = (await this.config()) ?? (await this.noModel());
    let prompt = spec.text;
    let correlationId = newCorrelationId();
    let mode = spec.mode;
    if (spec.plan) {
      // The plan's changes carry its correlation id, so they are found, tested and undone with it.
      const planned = s.record.requests.find((r) => r.correlation_id === spec.plan && r.mode === 'plan');
      const plan = planned ? await w.store.readPlan(s.record.id, spec.plan) : null;
      if (!plan) throw new InvalidArgumentError(`No saved plan for request ${spec.plan} in this session.`);
      prompt = `${spec.text}\n\n${plan}`;
      correlationId = spec.plan;
      mode = 'act';
    }
    const llm = new LlmClient(config);
    const wanted = checkAttachments(spec.attachments);
    // Refused before anything is sent (a denied file, an image for a text-only model): the request never starts.
    const facts = wanted.some((a) => a.kind === 'image') ? await llm.facts() : null;
    const attached = await resolveAttachments(w.services, prompt, wanted, { images: facts?.images ?? false, model: config.model, session: s.files });
    if (!s.record.requests.length && s.record.title === 'New session') s.record.title = titleFrom(spec.text);

    // While the model thinks: the first command's snapshot is the one that reads every file.
    w.services.captures.warm();
    const { signal: _own, ...toolContext } = w.services.toolContext({ session: s.files, corrector: new LlmEditCorrector(createJsonChat(config), this.logger) });
    const registry = this.tools(w);
    const sessionId = s.record.id;
    const usage = s.record.usage;
    const agent = new Agent(
      {
        llm,
        registry,
        toolContext,
        prompt: workspacePromptSource(w.services, registry),
        announcedPrompt: s.prompt?.text,
        usage: { session: usage?.session === undefined ? undefined : sessionUsageFrom(usage.session), last: usage?.last },
        savePlan: (c, text) => savePlan(w.services, sessionId, c, text),
      },
      s.record.messages,
    );
    const abort = new AbortController();
    const startedAt = new Date().toISOString();
    // Where this prompt lands in the messages: an edit of it later forks there.
    let messageIndex: number | undefined = s.record.messages.length;
    let saved: Promise<void> = Promise.resolve();
    // What the chat shows is kept beside the messages, so reopening the session shows it again.
    const entries = this.entries(w, s);
    keepEntry(entries, { type: 'user_message', text: spec.text, correlation_id: correlationId, ...(mode === 'plan' ? { mode } : {}), ...(attached.views.length ? { attachments: attached.views } : {}) });
    const off = agent.events.on((event) => {
      if (event.type === 'system_prompt') s.prompt = { text: event.text, files: event.files, skipped: event.skipped };
      if (event.type === 'compacted') {
        shiftIndexes(s.record.requests, event.removed_messages);
        messageIndex = messageIndex === undefined || messageIndex < event.removed_messages ? undefined : messageIndex - event.removed_messages + 1;
      }
      if (event.type === 'request_finished' && event.status === 'aborted') {
        // Stopping a request never stops its background processes: say which still run.
        const left = w.services.processes.running(sessionId);
        if (left.length) {
          const notice = { type: 'notice' as const, text: `Stopped. Still running in the background: ${left.map((l) => `${l.process_id} (${l.command})`).join(', ')}. Stop them in the Processes pane or with process_kill.`, correlation_id: event.correlation_id, t: event.t };
          keepEntry(entries, notice);
          this.deltas.push(sessionId, notice);
        }
      }
      keepEntry(entries, event);
      if (event.type === 'request_finished') {
        // Settled before anyone hears it is over, so an immediate next message is accepted;
        // the snapshot for the file is taken synchronously by save().
        s.record.messages = agent.messages;
        s.record.usage = { session: agent.usage.session, ...(agent.usage.last ? { last: agent.usage.last } : {}) };
        s.record.requests.push({ correlation_id: correlationId, prompt: spec.text, started_at: startedAt, status: event.status, ...(mode === 'plan' ? { mode } : {}), ...(messageIndex !== undefined ? { message_index: messageIndex } : {}) });
        s.running = null;
        saved = w.store.save(s.record).catch(() => undefined);
      }
      this.deltas.push(sessionId, event);
    });
    const run = { correlationId, abort, done: Promise.resolve() };
    s.running = run;
    run.done = (async () => {
      let status: string | undefined;
      try {
        status = (await agent.run(prompt, { signal: abort.signal, correlationId, mode, content: attached.content, steering: { take: () => s.queue.takeSteering() } })).status;
        await saved;
      } finally {
        off();
        if (s.running === run) s.running = null;
      }
      // A stop leaves the queue to the person; otherwise the next message goes.
      if (status && status !== 'aborted') this.drain(w, s);
    })();
    return { session_id: sessionId, correlation_id: correlationId };
  }

  /** The next queued message becomes the next request; if it cannot start, it stays queued and the chat says why. */
  private drain(w: WorkspaceAgent, s: LiveSession): void {
    if (s.running || this.workspaces.get(w.services) !== w) return;
    const next = s.queue.take();
    if (!next) return;
    this.start(w, s, { text: next.text, mode: next.mode }).catch((err: unknown) => {
      s.queue.putBack(next);
      const e = toWireError(err);
      this.deltas.push(s.record.id, { type: 'error', code: e.code, message: `The queued message was not sent: ${e.message}`, correlation_id: '', t: Date.now() });
    });
  }

  async stop(sessionId: string): Promise<void> {
    const s = this.wsFor(sessionId).live.get(sessionId);
    if (!s?.running) return;
    s.running.abort.abort();
    await s.running.done;
  }

  /** Another folder was opened: this one's requests stop and its questions go with them. */
  async release(services: WorkspaceServices): Promise<void> {
    const w = this.workspaces.get(services);
    if (!w) return;
    this.workspaces.delete(services);
    const running = [...w.live.values()].flatMap((s) => (s.running ? [s.running] : []));
    for (const r of running) r.abort.abort();
    await Promise.all(running.map((r) => r.done.catch(() => undefined)));
    await w.store.flush();
  }

  /** Stops every request and waits until their sessions are saved: quitting loses no turn. */
  async dispose(): Promise<void> {
    await Promise.all([...this.workspaces.keys()].map((services) => this.release(services)));
    this.deltas.flush();
  }
}

function factsView(f: ModelFacts): ModelFactsView {
  return {
    context_window: f.contextWindow,
    context_window_source: f.contextWindowSource,
    images: f.images,
    images_source: f.imagesSource,
    ...(f.price ? { input_usd_per_mtok: f.price.inputUsdPerMtok, output_usd_per_mtok: f.price.outputUsdPerMtok } : {}),
  };
}

const price = (v: unknown, what: string): number | undefined => {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new InvalidArgumentError(`${what} must be a number of dollars, 0 or more (got ${JSON.stringify(v)}).`);
  return v;
};

/** The model table as sent by a settings form, checked row by row. */
function modelTable(rows: unknown): Record<string, ModelRow> {
  if (!Array.isArray(rows)) throw new InvalidArgumentError('models must be a list of rows.');
  const out: Record<string, ModelRow> = {};
  for (const r of rows) {
    const row = r && typeof r === 'object' ? (r as Record<string, unknown>) : {};
    const model = typeof row.model === 'string' ? row.model.trim() : '';
    if (!model) throw new InvalidArgumentError('Each row of the model table needs a model name.');
    if (Object.hasOwn(out, model)) throw new InvalidArgumentError(`The model table names ${model} twice.`);
    if (row.images !== undefined && row.images !== null && typeof row.images !== 'boolean') throw new InvalidArgumentError(`images must be true or false (model ${model}).`);
    const input = price(row.input_usd_per_mtok, `The input price of ${model}`);
    const output = price(row.output_usd_per_mtok, `The output price of ${model}`);
    Object.defineProperty(out, model, {
      value: { ...(input !== undefined ? { input_usd_per_mtok: input } : {}), ...(output !== undefined ? { output_usd_per_mtok: output } : {}), ...(typeof row.images === 'boolean' ? { images: row.images } : {}) },
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
