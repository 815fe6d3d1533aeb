// The Host implements the contract for one open workspace. Transports (Electron IPC,
// WebSocket) call `handle` and forward `onEvent`; the Host never knows which one it serves.
import os from 'node:os';
import path from 'node:path';
import type { BootData, EventChannel, HostEvents, Params, RequestChannel, Result, WorkspaceInfo } from '../../shared/contract';
import { InvalidArgumentError, NoWorkspaceError } from '../errors';
import { nullLogger, type Logger } from '../services/log/logger';
import type { PtyService } from '../services/pty/ptyService';
import { RecentFolders } from '../services/settings/recentFolders';
import type { UserSettings } from '../services/settings/userSettings';
import { readForViewer } from '../services/workspace/fileReader';
import { findFiles } from '../services/workspace/fuzzyFiles';
import { openInEditor } from '../services/editor/openInEditor';
import { completeFolder } from '../services/workspace/pathCompletion';
import type { LlmConfig } from '../agent/llm/config';
import type { AgentHost } from './agent';
import { writeFileAtomic } from '../services/modlog/atomicWrite';
import type { LlmSettingsFileOptions } from './llmSettings';
import { TrustHost } from './trust';
import { ProcessesHost } from './processes';
import { Workspace } from './workspace';
import { WorktreeSessions } from './worktreeSessions';
import { listHooks } from './hooks';
import { savePersonEdit } from './personSave';
import { titleFrom } from '../services/sessions/sessionStore';
import { LOUPE_VERSION } from './version';
import { describeProblem, type ConfigProblem } from '../services/config/validate';
import { composeWorkspace, openTerminals, openUserSettings, type WorkspaceServices } from '../workspace/compose';

export interface HostOptions {
  transport: 'electron' | 'websocket';
  configDir: string;
  /** Shows a native folder picker (Electron). Absent in the browser. */
  pickFolder?: () => Promise<string | null>;
  /** Shows a native save dialog for a file named `name` (Electron); null when cancelled. Absent in the browser, which downloads instead. */
  pickSaveFile?: (name: string) => Promise<string | null>;
  /** Where the model API key is kept (the OS keychain); absent: the owner-only settings file. */
  keys?: LlmSettingsFileOptions;
  /** Tool crashes, config problems and background notices go here (the user's log file). */
  logger?: Logger;
  /** Where that log is, for the settings dialog. */
  logFile?: string;
  /** Opens remote folders in windows of their own (the app, `loupe serve`); absent: refused. */
  remote?: RemoteOpener;
  /** The model in memory instead of the settings file (a remote host: see AgentHostOptions.model). */
  model?: () => Promise<LlmConfig | null>;
}

/** What Open Remote Folder needs of the process that runs this Host. */
export interface RemoteOpener {
  hosts(): Promise<Result<'remote.hosts'>>;
  open(target: string): Promise<Result<'remote.open'>>;
}

type Listener = <E extends EventChannel>(event: E, payload: HostEvents[E]) => void;
type Handlers = { [C in RequestChannel]: (params: Params<C>) => Promise<Result<C>> | Result<C> };

export class Host {
  private workspace: Workspace | null = null;
  private opening: Promise<WorkspaceInfo> | null = null;
  private readonly listeners = new Set<Listener>();
  private readonly recent: RecentFolders;
  private readonly terminals: PtyService;
  private readonly handlers: Handlers;
  /** The agent side (chats, model settings, approvals): loaded on its first use, see `agent()`. */
  private agentHost: AgentHost | null = null;
  private agentLoading: Promise<AgentHost> | null = null;
  private readonly trust: TrustHost;
  private readonly processes: ProcessesHost;
  private readonly worktreeSessions: WorktreeSessions;
  private readonly user: UserSettings;
  private readonly logger: Logger;

  constructor(private readonly opts: HostOptions) {
    this.logger = opts.logger ?? nullLogger;
    this.user = openUserSettings(opts.configDir, (p) => this.configProblem(p));
    this.recent = new RecentFolders(opts.configDir);
    this.terminals = openTerminals({
      data: (id, data) => this.emit('terminal.data', { id, data }),
      exit: (id, exitCode, signal) => this.emit('terminal.exit', { id, exitCode, signal }),
    });
    this.worktreeSessions = new WorktreeSessions({
      main: () => this.ws().services,
      compose: (root, main) => this.composeWorktree(root, main),
      // Before the agent is loaded no session runs and none waits.
      agent: {
        sessionIn: async (services, o) => (await this.agent()).sessionIn(services, o),
        release: async (services) => (this.agentLoading ? (await this.agentLoading).release(services) : undefined),
        sessionState: (id) => this.agentHost?.sessionState(id) ?? null,
        waitingSessions: () => this.agentHost?.waitingSessions() ?? new Set<string>(),
      },
      emit: (e, p) => this.emit(e, p),
      logger: this.logger,
    });
    this.trust = new TrustHost(this.user);
    this.processes = new ProcessesHost((e, p) => this.emit(e, p));
    this.handlers = this.createHandlers();
  }

  /**
   * The agent side, loaded on first use: its modules (the loop, the model client, every tool's
   * schema, the edit pipeline) are a third of the host's code, and a folder opens, lists and
   * shows its tree without them (docs/architecture.md, "Big folders").
   */
  private agent(): Promise<AgentHost> {
    this.agentLoading ??= import('./agent').then(({ AgentHost }) => {
      this.agentHost = new AgentHost({
        user: this.user,
        emit: (e, p) => this.emit(e, p),
        services: () => this.ws().services,
        keys: this.opts.keys,
        model: this.opts.model,
        logger: this.logger,
        logFile: this.opts.logFile,
        worktreeOf: (services) => this.worktreeSessions.nameOf(services),
        isolate: (name) => this.worktreeSessions.isolate(name),
      });
      // From now on it reads the config itself, and hears the open folder's questions.
      if (this.workspace) void this.agentHost.checkConfig().catch(() => undefined);
      return this.agentHost;
    });
    return this.agentLoading;
  }

  handle<C extends RequestChannel>(channel: C, params: Params<C>): Promise<Result<C>> {
    const handler = this.handlers[channel] as ((p: Params<C>) => Promise<Result<C>> | Result<C>) | undefined;
    if (!handler || !Object.hasOwn(this.handlers, channel)) {
      return Promise.reject(new InvalidArgumentError(`Unknown request channel: ${String(channel)}`));
    }
    try {
      return Promise.resolve(handler(params));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  onEvent(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** What still runs here: requests, background processes and terminals (a remote host waits for them). */
  activity(): { requests: number; processes: number; terminals: number } {
    return {
      requests: this.agentHost?.runningCount() ?? 0,
      processes: this.workspace?.services.processes.running().length ?? 0,
      terminals: this.terminals.list().length,
    };
  }

  get current(): WorkspaceInfo | null {
    return this.workspace?.info ?? null;
  }

  /** A page is loading: the open folder reads ahead what it will ask first (Workspace.readAhead). */
  readAhead(): void {
    this.workspace?.readAhead();
  }

  /** What a page served now is given before it connects: the open folder and its root listing. */
  async bootData(): Promise<BootData | null> {
    const ws = this.workspace;
    return ws ? { workspace: ws.info, listing: await ws.firstListing() } : null;
  }

  async open(folder: string): Promise<WorkspaceInfo> {
    // Serialise opens so two quick clicks cannot leave two watchers running.
    const previous = this.opening ?? Promise.resolve(null);
    const job = previous.catch(() => null).then(async () => {
      // The same folder again keeps its services (its chats, its questions, its log); only the
      // watcher is made anew.
      const services = (root: string) => (this.workspace?.info.root === root ? this.workspace.services : this.compose(root));
      const next = await Workspace.open(folder, (e, p) => this.emit(e, p), services, (root) => this.trustChanged(root));
      const old = this.workspace;
      await old?.dispose();
      this.workspace = next;
      this.processes.attach(next.services.processes);
      if (old && old.services !== next.services) await this.release(old.services);
      await this.recent.add(next.info.root).catch(() => undefined);
      // Config problems become notices of the folder before it is announced, so every client sees them.
      await this.checkConfig().catch(() => undefined);
      this.emit('workspace.opened', next.info);
      this.trustChanged(next.info.root);
      return next.info;
    });
    this.opening = job;
    try {
      return await job;
    } finally {
      if (this.opening === job) this.opening = null;
    }
  }

  async dispose(): Promise<void> {
    this.terminals.dispose();
    this.processes.detach();
    await this.worktreeSessions.release();
    if (this.agentLoading) await (await this.agentLoading).dispose();
    await this.workspace?.dispose();
    await this.workspace?.services.dispose();
    this.workspace = null;
    this.listeners.clear();
  }

  /** Reads the settings and the open folder's config now, so their problems are said at once. */
  private async checkConfig(): Promise<void> {
    if (this.agentHost) return this.agentHost.checkConfig();
    this.user.permissions();
    await this.ws().services.project.load();
  }

  /** The composition root, with questions answered by a person and gate warnings shown as notices. */
  private compose(root: string): WorkspaceServices {
    const services = composeWorkspace({ root, user: this.user, asker: { kind: 'person' }, logger: this.logger, reportConfig: (p) => this.configProblem(p) });
    services.onWarning((message) => this.emit('workspace.notice', { root, message }));
    // A question asked before the agent is loaded (a repository's MCP server, at the opening)
    // loads it; the agent tells every later one.
    services.queue.onEvent(() => {
      if (this.agentHost) return;
      void this.agent().then((a) => this.workspace?.services === services && this.emit('approvals.changed', { requests: a.listApprovals() }));
    });
    services.mcp.onChange(() => this.workspace?.services === services && this.emit('mcp.changed', { servers: services.mcp.list() }));
    // A run, an answer or a new card: the settings' rows follow, at most once per 100 ms.
    let pending: NodeJS.Timeout | null = null;
    services.hooks.onChange(() => {
      pending ??= setTimeout(() => {
        pending = null;
        if (this.workspace?.services !== services) return;
        void listHooks(services.hooks).then(
          (hooks) => this.workspace?.services === services && this.emit('hooks.changed', { hooks }),
          () => undefined,
        );
      }, 100);
    });
    return services;
  }

  /**
   * A worktree of the open folder, for a session working there: its own services like any folder's,
   * its questions in the open folder's one queue.
   */
  private composeWorktree(root: string, main: WorkspaceServices): WorkspaceServices {
    const services = composeWorkspace({ root, user: this.user, asker: { kind: 'person' }, logger: this.logger, reportConfig: (p) => this.configProblem(p), queue: main.queue });
    services.onWarning((message) => this.emit('workspace.notice', { root, message }));
    return services;
  }

  /** Another folder was opened: the old one's requests stop (its worktrees' too), its sessions are saved. */
  private async release(services: WorkspaceServices): Promise<void> {
    await this.worktreeSessions.release();
    if (this.agentLoading) await (await this.agentLoading).release(services);
    await services.dispose();
  }

  private emit<E extends EventChannel>(event: E, payload: HostEvents[E]): void {
    if (event === 'workspace.notice') this.opts.logger?.warn('workspace.notice', payload as HostEvents['workspace.notice']);
    // Set once the constructor is done; the sidebar's rows follow the sessions' events.
    this.worktreeSessions?.observe(event, payload);
    for (const l of this.listeners) {
      try {
        l(event, payload);
      } catch (err) {
        // One broken transport must not starve the others.
        this.opts.logger?.error('transport.listener_failed', { event, error: err });
      }
    }
  }

  /** Re-reads the folder's trust and tells every client (the prompt shows when it is needed). */
  private trustChanged(root: string): void {
    if (this.workspace?.info.root === root) {
      void this.checkConfig().catch(() => undefined);
      // The folder's servers follow its config and its trust: started, stopped or asked about again.
      void this.workspace.services.mcp.sync({ wait: false }).catch((err: unknown) => this.logger.warn('mcp.sync_failed', { error: err }));
      this.workspace.services.hooks.refresh();
    }
    void this.trust.get(root).then(
      (view) => this.workspace?.info.root === root && this.emit('trust.changed', view),
      () => undefined,
    );
  }

  private async trustAnswer(view: Promise<Result<'trust.accept'>>): Promise<Result<'trust.accept'>> {
    const v = await view;
    this.emit('trust.changed', v);
    void this.workspace?.services.mcp.sync({ wait: false }).catch((err: unknown) => this.logger.warn('mcp.sync_failed', { error: err }));
    this.workspace?.services.hooks.refresh();
    // Questions waiting now may be answered by the rules trust turned on (or no longer be).
    await this.workspace?.services.queue.recheck();
    return v;
  }

  /** The desktop app's menu: something the page does (File › Export Session…). */
  menuCommand(command: HostEvents['app.command']['command']): void {
    this.emit('app.command', { command });
  }

  private remoteOpener(): RemoteOpener {
    if (!this.opts.remote) throw new InvalidArgumentError('Remote folders are opened from the app or `loupe serve` (or `loupe remote ssh://…`), not here.');
    return this.opts.remote;
  }

  private ws(): Workspace {
    if (!this.workspace) throw new NoWorkspaceError();
    return this.workspace;
  }

  /** A problem in settings.json or the folder's config: said once, in the log and as a notice. */
  private configProblem(problem: ConfigProblem): void {
    this.logger.warn('config.problem', { ...problem });
    this.workspace?.notice(describeProblem(problem));
  }

  private createHandlers(): Handlers {
    const str = (v: unknown, name: string): string => {
      if (typeof v !== 'string') throw new InvalidArgumentError(`${name} must be a string`);
      return v;
    };
    const obj = <T>(p: T): T => {
      if (typeof p !== 'object' || p === null) throw new InvalidArgumentError('params must be an object');
      return p;
    };
    return {
      'app.info': () => ({ version: LOUPE_VERSION, transport: this.opts.transport, platform: process.platform }),
      'workspace.current': () => {
        this.workspace?.expectListing();
        return this.current;
      },
      'workspace.open': (p) => this.open(str(obj(p).path, 'path')),
      'workspace.pick': async () => {
        if (!this.opts.pickFolder) throw new InvalidArgumentError('No native folder picker here; type a path instead.');
        const folder = await this.opts.pickFolder();
        return folder ? this.open(folder) : null;
      },
      'workspace.recent': () => this.recent.list(),
      'workspace.complete': async (p) => ({ candidates: await completeFolder(str(obj(p).partial, 'partial')) }),
      'tree.list': (p) => this.ws().list(str(obj(p).dir, 'dir')),
      'tree.gitStatus': () => this.ws().gitStatus(),
      'file.read': async (p) => {
        const { abs, rel } = await this.ws().resolve(str(obj(p).path, 'path'));
        return readForViewer(this.ws().info.root, abs, rel);
      },
      'file.save': async (p) => {
        const ws = this.ws();
        const saved = await savePersonEdit(ws.services.modlog, obj(p));
        // The servers hear the new text; the Problems list and the viewer's marks follow.
        if (saved.modification_id) void ws.problems.problems(saved.file).catch(() => undefined);
        return saved;
      },
      'file.openInEditor': async (p) => {
        const { abs } = await this.ws().resolve(str(obj(p).path, 'path'));
        const line = Number.isInteger(p.line) && (p.line as number) > 0 ? (p.line as number) : undefined;
        const r = await openInEditor(abs, line);
        const where = { path: abs, ...(line ? { line } : {}), host: os.hostname() };
        return r.opened ? { opened: true, editor: path.basename(r.command.command), ...where } : { opened: false, reason: r.reason, ...where };
      },
      'files.find': (p) => ({ files: findFiles(this.ws().index.searchable(), str(obj(p).query, 'query'), Math.min(Math.max(1, Number(p.limit) || 50), 500)) }),
      'search.text': (p) => this.ws().searchText(str(obj(p).query, 'query'), { regex: p.regex === true, caseSensitive: p.case_sensitive === true }),
      'terminal.create': async (p) => {
        const { cols, rows, cwd } = obj(p);
        const dir = cwd === undefined ? this.ws().info.root : (await this.ws().resolve(str(cwd, 'cwd'))).abs;
        return this.terminals.create({ cols, rows, cwd: dir });
      },
      'terminal.input': (p) => this.terminals.input(str(obj(p).id, 'id'), str(p.data, 'data')),
      'terminal.resize': (p) => this.terminals.resize(str(obj(p).id, 'id'), p.cols, p.rows),
      'terminal.ack': (p) => this.terminals.ack(str(obj(p).id, 'id'), p.chars),
      'terminal.kill': (p) => this.terminals.kill(str(obj(p).id, 'id')),
      'terminal.list': () => this.terminals.list(),
      'processes.list': () => this.processes.list(),
      'processes.kill': (p) => this.processes.kill(str(obj(p).id, 'id')),
      'processes.restart': (p) => this.processes.restart(str(obj(p).id, 'id')),
      'processes.watch': (p) => this.processes.watchLog(obj(p).id === null ? null : str(p.id, 'id')),
      'processes.ack': (p) => this.processes.ack(str(obj(p).id, 'id'), Number(p.chars)),
      'mcp.list': () => this.ws().services.mcp.list(),
      'mcp.restart': async (p) => {
        const mcp = this.ws().services.mcp;
        // Settles in the background (a repository's server may wait for its card): the list says how it goes.
        void mcp.restart(str(obj(p).name, 'name')).catch((err: unknown) => this.logger.warn('mcp.restart_failed', { error: err }));
        return mcp.list();
      },
      'mcp.setDisabled': async (p) => {
        const mcp = this.ws().services.mcp;
        const name = str(obj(p).name, 'name');
        if (typeof p.disabled !== 'boolean') throw new InvalidArgumentError('disabled must be true or false');
        if (!mcp.list().some((v) => v.name === name)) throw new InvalidArgumentError(`There is no MCP server named "${name}" here.`);
        void mcp.setDisabled(name, p.disabled).catch((err: unknown) => this.logger.warn('mcp.disable_failed', { error: err }));
        return mcp.list();
      },
      'mcp.save': async (p) => {
        const mcp = this.ws().services.mcp;
        const previous = obj(p).previous_name;
        await mcp.saveOwn(str(p.name, 'name'), p.server, previous === undefined ? undefined : str(previous, 'previous_name'));
        return mcp.list();
      },
      'mcp.remove': async (p) => {
        const mcp = this.ws().services.mcp;
        await mcp.removeOwn(str(obj(p).name, 'name'));
        return mcp.list();
      },
      'hooks.list': () => listHooks(this.ws().services.hooks),
      'agents.list': () => this.ws().services.hostedAgents.list(),
      'agents.enable': async (p) => {
        if (typeof obj(p).enabled !== 'boolean') throw new InvalidArgumentError('enabled must be true or false');
        const agents = this.ws().services.hostedAgents;
        await agents.enable(str(p.name, 'name'), p.enabled, p.folder === undefined ? undefined : str(p.folder, 'folder'));
        return agents.list();
      },
      'hooks.approve': async (p) => {
        await this.ws().services.hooks.approve(str(obj(p).id, 'id'));
        return listHooks(this.ws().services.hooks);
      },
      'hooks.setDisabled': async (p) => {
        if (typeof obj(p).disabled !== 'boolean') throw new InvalidArgumentError('disabled must be true or false');
        await this.ws().services.hooks.setDisabled(str(p.id, 'id'), p.disabled);
        return listHooks(this.ws().services.hooks);
      },
      'modlog.list': (p) => this.ws().review.list(p ?? {}),
      'modlog.requestNames': async (p) => {
        const ids = obj(p).ids;
        if (!Array.isArray(ids) || !ids.every((x) => typeof x === 'string') || ids.length > 500) throw new InvalidArgumentError('ids must be a list of at most 500 request ids');
        const found = await this.ws().services.sessions.prompts(ids as string[]);
        return Object.fromEntries([...found].filter(([, prompt]) => prompt.trim()).map(([id, prompt]) => [id, titleFrom(prompt)]));
      },
      'modlog.diff': (p) => this.ws().review.diff(str(obj(p).modification_id, 'modification_id')),
      'modlog.fileDiff': (p) => this.ws().review.fileDiff(str(obj(p).path, 'path')),
      'modlog.rollback': (p) => this.ws().review.rollback({ ...obj(p), modification_id: str(p.modification_id, 'modification_id') }),
      'modlog.revertHunk': (p) => this.ws().review.revertHunk({ ...obj(p), modification_id: str(p.modification_id, 'modification_id') }),
      'modlog.approve': (p) => this.ws().review.approve(str(obj(p).modification_id, 'modification_id')),
      'modlog.commitApproved': (p) => this.ws().review.commitApproved(str(obj(p).message, 'message')),
      'chat.send': async (p) => (await this.agent()).send(obj(p)),
      'chat.mentions': async (p) => (await this.agent()).mentions(obj(p)),
      'commands.list': async () => (await this.agent()).slashCommands(),
      'chat.enqueue': async (p) => (await this.agent()).enqueue({ ...obj(p), session_id: str(p.session_id, 'session_id') }),
      'chat.queueEdit': async (p) => (await this.agent()).queueEdit({ ...obj(p), session_id: str(p.session_id, 'session_id'), id: str(p.id, 'id') }),
      'chat.queueRemove': async (p) => (await this.agent()).queueRemove({ session_id: str(obj(p).session_id, 'session_id'), id: str(p.id, 'id') }),
      'chat.sendNow': async (p) => (await this.agent()).sendNow({ session_id: str(obj(p).session_id, 'session_id'), id: str(p.id, 'id') }),
      'chat.edit': async (p) => (await this.agent()).edit({ ...obj(p), session_id: str(p.session_id, 'session_id'), correlation_id: str(p.correlation_id, 'correlation_id') }),
      'chat.switchBranch': async (p) => (await this.agent()).switchBranch({ session_id: str(obj(p).session_id, 'session_id'), branch_id: str(p.branch_id, 'branch_id') }),
      'chat.stop': async (p) => (await this.agent()).stop(str(obj(p).session_id, 'session_id')),
      'chat.stopAgent': async (p) => (await this.agent()).stopAgent({ session_id: str(obj(p).session_id, 'session_id'), agent_id: str(obj(p).agent_id, 'agent_id') }),
      'chat.sessions': async () => (await this.agent()).listSessions(),
      'chat.session': async (p) => (await this.agent()).getSession(str(obj(p).id, 'id')),
      'chat.newSession': async (p) => (await this.agent()).newSession(p?.agent === undefined ? undefined : str(p.agent, 'agent')),
      'chat.renameSession': async (p) => (await this.agent()).renameSession(str(obj(p).id, 'id'), str(p.title, 'title')),
      'chat.deleteSession': async (p) => (await this.agent()).deleteSession(str(obj(p).id, 'id')),
      'chat.undoPreview': async (p) => (await this.agent()).undoPreview({ session_id: str(obj(p).session_id, 'session_id'), correlation_id: str(p.correlation_id, 'correlation_id') }),
      'chat.undo': async (p) => (await this.agent()).undo({ ...obj(p), session_id: str(p.session_id, 'session_id'), correlation_id: str(p.correlation_id, 'correlation_id'), digest: str(p.digest, 'digest') }),
      'chat.redoPreview': async (p) => (await this.agent()).redoPreview({ session_id: str(obj(p).session_id, 'session_id'), correlation_id: str(p.correlation_id, 'correlation_id') }),
      'chat.redo': async (p) => (await this.agent()).redo({ ...obj(p), session_id: str(p.session_id, 'session_id'), correlation_id: str(p.correlation_id, 'correlation_id'), digest: str(p.digest, 'digest') }),
      // A whole-tree git status, the sandbox probe and the instruction files: after the first screen.
      'chat.systemPrompt': async (p) => {
        await this.workspace?.firstScreen;
        return (await this.agent()).systemPrompt(p ?? {});
      },
      'chat.export': async (p) => (await this.agent()).exportSession(obj(p)),
      'chat.exportToFile': async (p) => {
        if (!this.opts.pickSaveFile) throw new InvalidArgumentError('No native save dialog here: export with chat.export, which a browser downloads.');
        const agent = await this.agent();
        const chosen = await this.opts.pickSaveFile(await agent.exportName(str(obj(p).session_id, 'session_id'), p.format === 'json' ? 'json' : 'md'));
        if (!chosen) return null;
        // The name the person typed decides the format: .json is the complete export, anything else Markdown.
        const { text } = await agent.exportSession({ session_id: p.session_id, format: chosen.toLowerCase().endsWith('.json') ? 'json' : 'md' });
        await writeFileAtomic(chosen, Buffer.from(text), 0o600);
        return { path: chosen };
      },
      'approvals.list': async () => (await this.agent()).listApprovals(),
      'approvals.answer': async (p) => (await this.agent()).answer(obj(p)),
      'settings.get': async () => (await this.agent()).getSettings(),
      'settings.save': async (p) => (await this.agent()).saveSettings(obj(p)),
      'settings.models': async (p) => (await this.agent()).models(p ?? undefined),
      'settings.test': async (p) => (await this.agent()).test(p ?? undefined),
      'settings.editsMode': async () => (await this.agent()).editsMode(),
      'settings.sandbox': async () => (await this.agent()).sandboxStatus(),
      'settings.setEditsMode': async (p) => (await this.agent()).setEditsMode(obj(p) as Params<'settings.setEditsMode'>),
      'trust.get': () => this.trust.get(this.ws().info.root),
      'trust.accept': (p) => this.trustAnswer(this.trust.accept(this.ws().info.root, obj(p).digest)),
      'trust.decline': (p) => this.trustAnswer(this.trust.decline(this.ws().info.root, obj(p).digest)),
      'lsp.status': () => this.ws().problems.status(),
      'lsp.problems': (p) => this.ws().problems.problems(str(obj(p).path, 'path')),
      'lsp.knownProblems': () => this.ws().problems.known(),
      'worktree.sessions': async () => {
        await this.workspace?.firstScreen;
        return this.worktreeSessions.list();
      },
      'worktree.newSession': (p) => this.worktreeSessions.create(str(obj(p).name, 'name')),
      'worktree.changes': (p) => this.worktreeSessions.changes(str(obj(p).name, 'name')),
      'worktree.fileDiff': (p) => this.worktreeSessions.fileDiff(str(obj(p).name, 'name'), str(p.path, 'path')),
      'worktree.apply': (p) => {
        const files = obj(p).files;
        if (files !== undefined && !(Array.isArray(files) && files.every((f) => typeof f === 'string'))) throw new InvalidArgumentError('files must be a list of paths');
        return this.worktreeSessions.apply(str(p.name, 'name'), files);
      },
      'worktree.discardReport': (p) => this.worktreeSessions.discardReport(str(obj(p).name, 'name')),
      'worktree.discard': (p) => this.worktreeSessions.discard(str(obj(p).name, 'name'), str(p.digest, 'digest')),
      // A folder of this machine; a remote window's status comes from the relay in front of it.
      'remote.status': () => null,
      'remote.hosts': () => this.remoteOpener().hosts(),
      'remote.open': (p) => this.remoteOpener().open(str(obj(p).target, 'target')),
    };
  }
}
