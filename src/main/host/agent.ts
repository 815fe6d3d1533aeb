// The agent side of the host: the model settings, one permission gate per
// workspace whose questions become approval cards, and one agent loop per chat session whose
// events stream to the chat pane. Knows nothing of transports.
import type {
  ApprovalRequestView,
  ChatSessionSummary,
  ChatSessionView,
  ChatTranscriptEntry,
  EditsModeName,
  HostEvents,
  LlmProbe,
  LlmSettingsView,
  Params,
  SandboxStatusView,
  UndoPreviewView,
  UndoResultView,
  SystemPromptView,
} from '../../shared/contract';
import { InvalidArgumentError } from '../errors';
import { LlmEditCorrector } from '../agent/edit/corrector';
import { nullLogger, type Logger } from '../services/log/logger';
import { LlmClient } from '../agent/llm/client';
import { resolveLlmConfig, type LlmConfig } from '../agent/llm/config';
import { detectLocalServers, describeDetected } from '../agent/llm/detect';
import { NoModelError } from '../agent/llm/errors';
import { DEFAULT_BASE_URL, knownProfile } from '../agent/llm/profile';
import { createJsonChat } from '../agent/llm/jsonChat';
import type { ChatMessage } from '../agent/llm/types';
import { Agent, newCorrelationId } from '../agent/loop/agentLoop';
import { workspacePromptSource } from '../agent/prompts/workspacePrompt';
import { createToolRegistry, type ToolRegistry } from '../agent/tools/registry';
import { FileSession } from '../services/files/readTracker';
import type { ApprovalQueue } from '../services/permissions/approvalQueue';
import type { PermissionGate } from '../services/permissions/permissionGate';
import { ConfigMalformedError, describeProblem } from '../services/permissions/errors';
import { CONFIG_REL, type ProjectConfig } from '../services/permissions/projectConfig';
import { titleFrom, type SessionRecord, type SessionStore } from '../services/sessions/sessionStore';
import type { UserSettings } from '../services/settings/userSettings';
import type { WorkspaceServices } from '../workspace/compose';
import { LlmSettingsFile, savedAsLlmSettings, type LlmSettingsFileOptions } from './llmSettings';
import { checkedEntries, entriesFromMessages, keepEntry } from './transcript';
import { undoneRequests, undoPreview } from './undo';
import { undoRequests, type UndoScope } from '../services/modlog/groupRollback';

type Emit = <E extends keyof HostEvents>(event: E, payload: HostEvents[E]) => void;

/** A saved chat: the model's messages, and what the chat showed of them (absent in older files). */
type ChatRecord = SessionRecord<ChatMessage> & { entries?: ChatTranscriptEntry[] };

interface LiveSession {
  record: ChatRecord;
  files: FileSession;
  running: { correlationId: string; abort: AbortController; done: Promise<void> } | null;
  /** The system prompt as last sent in this session (kept while the host runs). */
  prompt: SystemPromptView | null;
}

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
}

export class AgentHost {
  private readonly settings: LlmSettingsFile;
  private readonly workspaces = new Map<WorkspaceServices, WorkspaceAgent>();
  private readonly env: NodeJS.ProcessEnv;
  private readonly registry: ToolRegistry;

  constructor(private readonly opts: AgentHostOptions) {
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

  private approvals(w: WorkspaceAgent): ApprovalRequestView[] {
    return w.queue.list().map((r) => ({ ...r, always: r.always.map((a) => ({ ...a })) }));
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

  async getSettings(): Promise<LlmSettingsView> {
    const saved = await this.settings.read();
    const config = await this.config();
    const detected = await detectLocalServers({ timeoutMs: 300 });
    const fromSettings = Boolean(saved.base_url || saved.model);
    const profile = config ? knownProfile(config.baseURL ?? DEFAULT_BASE_URL)?.describe() : undefined;
    return {
      base_url: saved.base_url ?? this.env.OPENAI_BASE_URL ?? '',
      model: saved.model ?? this.env.LOUPE_MODEL ?? '',
      ...(saved.context_tokens ? { context_tokens: saved.context_tokens } : {}),
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
    const w = this.ws();
    const s = typeof p?.session_id === 'string' && p.session_id ? await this.session(w, p.session_id) : null;
    if (s?.prompt) return { ...s.prompt, sent: true };
    const config = await this.config();
    const source = workspacePromptSource(w.services, this.registry);
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
    await this.settings.update({
      base_url: p.base_url.trim() || undefined,
      model: p.model.trim() || undefined,
      context_tokens: p.context_tokens || undefined,
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

  async test(probe: LlmProbe | void) {
    const r = await (await this.probeClient(probe)).testConnection();
    return { ok: r.ok, models: r.models, latency_ms: r.latencyMs, ...(r.error ? { error: r.error } : {}) };
  }

  // ---- approvals ---------------------------------------------------------------------------

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
    const proposed = req.always.map((r) => r.pattern);
    const patterns = (p.patterns ?? proposed).map((s) => s.trim()).filter(Boolean);
    if (!patterns.length) throw new InvalidArgumentError('"Allow always" needs a pattern to save.');
    if (p.scope !== 'user' && JSON.stringify(patterns) === JSON.stringify(proposed)) return { answered: w.queue.answer(p.id, { answer: 'always' }) };
    // An edited rule, or one for this person only: saved as written, and this call allowed once.
    // A card for running outside the sandbox saves rules that say so, edited or not.
    // A network card's rule keeps its host: an edited command pattern must not open every host.
    const hosts = req.always[0]?.hosts;
    const rules = patterns.map((pattern) => ({ kind: req.kind, pattern, action: 'allow' as const, ...(req.sandboxed === false ? { sandbox: false } : {}), ...(hosts ? { hosts } : {}) }));
    if (p.scope === 'user') await this.opts.user.addFolderRules(w.services.root, rules);
    else await w.project.addRules(rules);
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
      s = w.live.get(id) ?? { record, files: new FileSession(record.id), running: null, prompt: null };
      w.live.set(id, s);
    }
    return s;
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
    const w = this.ws();
    const s = await this.session(w, id);
    const entries = s.record.entries ?? entriesFromMessages(s.record.messages, (n, a) => this.registry.callFacts(n, a));
    const undone = await undoneRequests(w.services.modlog, s.record.id, s.record.requests.map((r) => r.correlation_id)).catch(() => []);
    return { session: this.summary(w, s.record), entries, ...(s.running ? { running_correlation_id: s.running.correlationId } : {}), ...(undone.length ? { undone } : {}) };
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
    const w = this.ws();
    return undoPreview(w.services.modlog, await this.undoScope(w, p.session_id, p.correlation_id));
  }

  async undo(p: Params<'chat.undo'>): Promise<UndoResultView> {
    if (p.on_conflict !== 'skip' && p.on_conflict !== 'refuse') throw new InvalidArgumentError('on_conflict must be "skip" or "refuse".');
    const w = this.ws();
    const scope = await this.undoScope(w, p.session_id, p.correlation_id);
    const out = await undoRequests(w.services.modlog, scope, { onConflict: p.on_conflict, tool: 'undo', digest: p.digest, reason: `undo from request ${p.correlation_id}` });
    return { group_id: out.group_id, files: out.files, rolled_back: out.rolled_back.length, skipped: out.skipped.map(({ file, why }) => ({ file, why })) };
  }

  newSession(): ChatSessionSummary {
    const w = this.ws();
    const record = w.store.create<ChatMessage>();
    w.live.set(record.id, { record, files: new FileSession(record.id), running: null, prompt: null });
    return this.summary(w, record);
  }

  async renameSession(id: string, title: string): Promise<ChatSessionSummary> {
    const w = this.ws();
    const s = await this.session(w, id);
    if (!title?.trim()) throw new InvalidArgumentError('A session title cannot be empty.');
    s.record.title = title.trim().slice(0, 200);
    await w.store.save(s.record);
    return this.summary(w, s.record);
  }

  async deleteSession(id: string): Promise<void> {
    const w = this.ws();
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
    if (typeof p?.text !== 'string' || !p.text.trim()) throw new InvalidArgumentError('Type a message first.');
    const w = this.ws();
    const config = await this.config();
    if (!config) throw new NoModelError(describeDetected(await detectLocalServers({ timeoutMs: 300 })));
    const s = p.session_id ? await this.session(w, p.session_id) : await this.session(w, this.newSession().id);
    if (s.running) throw new InvalidArgumentError('The agent is still working on the last request in this session. Stop it or wait for it to finish.');
    if (!s.record.requests.length && s.record.title === 'New session') s.record.title = titleFrom(p.text);

    const llm = new LlmClient(config);
    // While the model thinks: the first command's snapshot is the one that reads every file.
    w.services.captures.warm();
    const { signal: _own, ...toolContext } = w.services.toolContext({ session: s.files, corrector: new LlmEditCorrector(createJsonChat(config), this.logger) });
    const prompt = workspacePromptSource(w.services, this.registry);
    const agent = new Agent({ llm, registry: this.registry, toolContext, prompt, announcedPrompt: s.prompt?.text }, s.record.messages);
    const sessionId = s.record.id;
    const correlationId = newCorrelationId();
    const abort = new AbortController();
    const startedAt = new Date().toISOString();
    let saved: Promise<void> = Promise.resolve();
    // What the chat shows is kept beside the messages, so reopening the session shows it again.
    const entries = (s.record.entries ??= entriesFromMessages(s.record.messages, (n, a) => this.registry.callFacts(n, a)));
    keepEntry(entries, { type: 'user_message', text: p.text, correlation_id: correlationId });
    const off = agent.events.on((event) => {
      if (event.type === 'system_prompt') s.prompt = { text: event.text, files: event.files, skipped: event.skipped };
      if (event.type === 'request_finished' && event.status === 'aborted') {
        // Stopping a request never stops its background processes: say which still run.
        const left = w.services.processes.running(sessionId);
        if (left.length) {
          const notice = { type: 'notice' as const, text: `Stopped. Still running in the background: ${left.map((l) => `${l.process_id} (${l.command})`).join(', ')}. Stop them in the Processes pane or with process_kill.`, correlation_id: event.correlation_id, t: event.t };
          keepEntry(entries, notice);
          this.opts.emit('chat.event', { session_id: sessionId, event: notice });
        }
      }
      keepEntry(entries, event);
      if (event.type === 'request_finished') {
        // Settled before anyone hears it is over, so an immediate next message is accepted;
        // the snapshot for the file is taken synchronously by save().
        s.record.messages = agent.messages;
        s.record.requests.push({ correlation_id: correlationId, prompt: p.text, started_at: startedAt, status: event.status });
        s.running = null;
        saved = w.store.save(s.record).catch(() => undefined);
      }
      this.opts.emit('chat.event', { session_id: sessionId, event });
    });
    const run = { correlationId, abort, done: Promise.resolve() };
    s.running = run;
    run.done = (async () => {
      try {
        await agent.run(p.text, { signal: abort.signal, correlationId });
        await saved;
      } finally {
        off();
        if (s.running === run) s.running = null;
      }
    })();
    return { session_id: sessionId, correlation_id: correlationId };
  }

  async stop(sessionId: string): Promise<void> {
    const s = this.ws().live.get(sessionId);
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
  }
}
