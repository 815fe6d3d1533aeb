// The composition root: the one place that builds a workspace's services. The app's Host,
// `loupe run` and `loupe mcp` each call `composeWorkspace` once per open folder and hand what
// it returns to everything else, so one process has one modification log (and its per-file
// lock), one reader of each config file, one permission engine and one session store per
// folder. The user's settings and the terminals are built here too, once per process, for
// the front ends that need them. Nothing here is module state: dropping the returned object
// drops the workspace. test/architecture.test.ts keeps these constructors out of other files.
import os from 'node:os';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { NetworkLogEntry, SandboxStatusView } from '../../shared/contract';
import type { Logger } from '../services/log/logger';
import { ModificationLog } from '../services/modlog/modificationLog';
import { ApprovalQueue, type Responder } from '../services/permissions/approvalQueue';
import { PermissionGate } from '../services/permissions/permissionGate';
import { ProjectConfig, type ConfigProblem } from '../services/permissions/projectConfig';
import { PermissionEngine } from '../services/permissions/ruleEngine';
import { planSandbox, sandboxStatus } from '../services/permissions/sandboxPlan';
import { PtyService, type PtyEvents } from '../services/pty/ptyService';
import { ProcessManager } from '../services/processes/processManager';
import { SandboxProbe } from '../services/sandbox/probe';
import { SessionStore } from '../services/sessions/sessionStore';
import { CommandCapture } from '../services/snapshots/commandCapture';
import { WorkTreeSnapshots } from '../services/snapshots/workTreeSnapshots';
import { UserSettings } from '../services/settings/userSettings';
import { FileIndex } from '../services/workspace/fileIndex';
import { DEFAULT_WAIT_MS, LanguageServers } from '../services/lsp/languageServers';
import { lspSettings } from '../services/lsp/lspSettings';
import { McpServers, type ServerPlacement } from '../services/mcp/manager';
import { Hooks } from '../services/hooks/hooks';
import { ClaudeUserSettings } from '../services/hooks/claudeUserSettings';
import { ServerSignIn } from '../services/mcp/signIn';
import { McpSignInStore } from '../services/mcp/signInStore';
import { mcpSignInItem, systemKeyStore } from '../services/settings/keyStore';
import { commandLine, type McpServerDecl } from '../services/config/mcpServers';
import type { SandboxPolicy } from '../services/sandbox/bwrapPolicy';
import { expandDenyGlobs } from '../services/sandbox/denyPaths';
import { LOUPE_VERSION } from '../host/version';
import { WorkspaceWatcher, type ChangeBatch } from '../services/workspace/watcher';
import { ChangeJournal } from '../services/workspace/changeJournal';
import { Worktrees } from '../services/worktrees/worktrees';
import { HostedAgents } from '../services/hostedAgents/hostedAgents';
import { agentCommandLine, type AgentDecl } from '../services/config/agentsConfig';
import type { WorkspaceServices } from '../services/workspaceServices';
import { SkillCatalog } from '../services/skills/catalog';
import { CommandCatalog } from '../services/commands/catalog';
import { BUILTIN_NAMES } from '../services/commands/builtins';
import { readRefusal } from '../services/permissions/readRefusal';
import { AgentDefinitions } from '../services/agents/definitions';

export type { WorkspaceServices };

const NETWORK_LOG_KEEP = 50;

/**
 * How a permission question is answered. `person`: it waits, as a card, until someone answers
 * (the app). `responder`: a terminal prompt or an MCP elicitation answers; when it cannot, the
 * call is denied with the rule that would allow it. `deny`: nobody is asked, every ask is denied.
 */
export type Asker = { kind: 'person' } | { kind: 'responder'; respond: Responder } | { kind: 'deny' };

export interface ComposeOptions {
  /** Realpath of the workspace folder. */
  root: string;
  /** The user's settings, one per config dir per process (`openUserSettings`). */
  user: UserSettings;
  asker: Asker;
  logger: Logger;
  /** Told each problem of `.loupe/config.json` once; default: the logger's `config.problem`. */
  reportConfig?: (problem: ConfigProblem) => void;
  /** Language servers may run (default: unless LOUPE_LSP=off); `"lsp": false` in the config still turns them off. */
  lsp?: boolean;
  /** The environment MCP servers' `${env:VAR}` read; default this process's. */
  env?: NodeJS.ProcessEnv;
  /**
   * Another folder's approval queue to ask in: a session in a worktree asks in the main folder's
   * one queue, so the person answers every session's questions in one place.
   */
  queue?: ApprovalQueue;
  /** The person's home folder, whose `.claude`, `.agents` and `.codex` folders hold their skills and commands; default HOME. */
  home?: string;
}

/** One open folder's services. Built only by `composeWorkspace`. */
class ComposedWorkspace implements WorkspaceServices {
  // Each field is described where the shape is (services/workspaceServices.ts).
  readonly modlog: ModificationLog;
  readonly project: ProjectConfig;
  readonly queue: ApprovalQueue;
  readonly engine: PermissionEngine;
  readonly permissions: PermissionGate;
  readonly sessions: SessionStore;
  readonly index: FileIndex;
  readonly journal = new ChangeJournal();
  readonly sandbox: SandboxProbe;
  readonly captures: CommandCapture;
  readonly processes: ProcessManager;
  readonly mcp: McpServers;
  readonly hooks: Hooks;
  readonly networkLog: NetworkLogEntry[] = [];
  readonly lsp: LanguageServers;
  readonly worktrees: Worktrees;
  readonly skills: SkillCatalog;
  readonly commands: CommandCatalog;
  readonly agents: AgentDefinitions;
  readonly hostedAgents: HostedAgents;
  private readonly warningListeners = new Set<(message: string) => void>();

  constructor(
    readonly root: string,
    readonly user: UserSettings,
    asker: Asker,
    readonly logger: Logger,
    reportConfig?: (problem: ConfigProblem) => void,
    lsp = process.env.LOUPE_LSP !== 'off',
    env: NodeJS.ProcessEnv = process.env,
    queue?: ApprovalQueue,
    home: string = os.homedir(),
  ) {
    this.modlog = new ModificationLog(root);
    this.project = new ProjectConfig(root, user, { report: reportConfig ?? ((problem) => logger.warn('config.problem', { ...problem })) });
    this.queue = queue ?? new ApprovalQueue(asker.kind === 'person' ? 'wait' : 'deny');
    if (asker.kind === 'responder' && !queue) this.queue.setResponder(asker.respond);
    this.sandbox = new SandboxProbe();
    this.engine = new PermissionEngine({
      root,
      project: this.project,
      userRules: user.permissions,
      userFolderRules: () => user.folderPermissions(root),
      userSandbox: user.sandboxMode,
      sandbox: () => this.sandbox.status(),
    });
    this.permissions = new PermissionGate(this.engine, this.queue, {
      persist: (rules) => this.project.addRules(rules),
      onWarning: (message) => this.warn(message),
      grantApprovals: { approved: (key) => user.grantApproval(root, key), approve: (key, digest) => user.approveGrant(root, key, digest) },
      onHostDecision: (entry) => {
        this.networkLog.push(entry);
        if (this.networkLog.length > NETWORK_LOG_KEEP) this.networkLog.splice(0, this.networkLog.length - NETWORK_LOG_KEEP);
      },
    });
    this.sessions = new SessionStore(root);
    const configDir = path.dirname(user.file);
    this.skills = new SkillCatalog({ root, home, configDir, readRules: readRefusal(this.engine) });
    this.commands = new CommandCatalog({ root, home, configDir, readRules: readRefusal(this.engine), reserved: BUILTIN_NAMES });
    this.agents = new AgentDefinitions({ root });
    this.worktrees = openWorktrees(root, user, this.logger);
    this.index = new FileIndex(root);
    const snapshots = new WorkTreeSnapshots(
      root,
      async () => {
        // Seeded from the repository's own index only when the workspace is its top folder (same paths).
        const git = await this.modlog.git();
        return git && git.prefix === '' ? { objects: git.objectsDir, index: git.indexFile, exclude: git.excludeFile } : null;
      },
      this.journal,
    );
    this.captures = new CommandCapture(snapshots, this.modlog, logger);
    this.processes = new ProcessManager({
      root,
      // What a background process writes becomes its request's modifications when it ends.
      recorder: {
        begin: (spec) =>
          this.captures.begin({ tool: 'bash', command: spec.command, sessionId: spec.sessionId, ...(spec.agentId ? { agentId: spec.agentId } : {}), ...(spec.correlationId ? { correlationId: spec.correlationId } : {}), reason: `in the background: ${spec.description ?? spec.command}` }),
      },
      // The project's limits, then the user's; the manager fills in the defaults.
      limits: async () => {
        const own = (await this.project.load()).config.limits ?? {};
        const user = this.user.processLimits();
        return { maxRunning: own.max_processes ?? user.max_processes, idleMs: own.process_idle_ms ?? user.process_idle_ms };
      },
    });
    this.lsp = new LanguageServers({
      root,
      logger,
      settings: async () => {
        const project = await this.project.load();
        // Decided as for a command (planSandbox): the config's or user's mode, and a sandbox that works here.
        const { active } = planSandbox(this.engine.sandboxMode(project), await this.sandbox.status(), [], []);
        return lspSettings(project, { enabled: lsp, sandboxed: active });
      },
      waitMs: async () => (await this.project.load()).config.limits?.diagnostics_wait_ms ?? DEFAULT_WAIT_MS,
    });
    // A server's sign-in is kept where the API key is: the keychain of this config folder, else its settings file.
    const signIns = new McpSignInStore(user, (url) => systemKeyStore(path.dirname(user.file), process.platform, env, mcpSignInItem(url)));
    this.mcp = new McpServers({
      root,
      user,
      project: this.project,
      ask: (request, signal) => this.queue.request(request, signal),
      sandbox: (decl) => this.mcpSandbox(decl),
      logger,
      env,
      clientInfo: { name: 'loupe', version: LOUPE_VERSION },
      signIn: (decl, show) => new ServerSignIn(decl, { store: signIns, show }),
    });
    this.hooks = new Hooks({
      root,
      user,
      claudeUser: new ClaudeUserSettings(env, reportConfig ?? ((problem) => logger.warn('config.problem', { ...problem }))),
      project: this.project,
      ask: (request, signal) => this.queue.request(request, signal),
      sandbox: (hosts, label) => this.hookSandbox(hosts, label),
      capture: (req, run) => this.captures.around(req, run),
      logger,
      env,
    });
    this.hostedAgents = new HostedAgents({
      root,
      user,
      project: this.project,
      ask: (request, signal) => this.queue.request(request, signal),
      sandbox: (decl, stateDir) => this.agentSandbox(decl, stateDir),
      stateRoot: path.join(path.dirname(user.file), 'agents'),
      env,
      logger,
    });
    // Notification hooks hear each question that waits for the person (not a hook's own card, which
    // a Notification hook of the repository's would otherwise raise again and again). A worktree
    // asks in the main folder's queue, whose own services tell its hooks.
    if (!queue) {
      this.queue.onEvent((e) => {
        if (e.type !== 'requested' || e.request.kind === 'hook') return;
        const message = `Loupe needs your permission: ${e.request.summary}`;
        void this.hooks
          .fire({ event: 'Notification', sessionId: e.request.session_id ?? '', ...(e.request.correlation_id ? { correlationId: e.request.correlation_id } : {}), target: () => 'permission_prompt', input: () => ({ message, notification_type: 'permission_prompt' }) })
          .catch((err: unknown) => logger.warn('hooks.notification_failed', { error: err }));
      });
    }
  }

  /**
   * The sandbox a repository's command hook runs in: a command's policy (the workspace writable,
   * credentials and read-denied paths hidden), its network only to the hosts its configuration
   * lists; outside it where commands run outside it.
   */
  private async hookSandbox(hosts: readonly string[], label: string): Promise<SandboxPolicy | undefined> {
    const project = await this.project.load();
    if (this.engine.sandboxMode(project) === 'off' || !(await this.sandbox.status()).available) return undefined;
    const denyRead = (await this.engine.rules()).filter((r) => r.kind === 'read' && r.action === 'deny').map((r) => r.pattern);
    const grant = { network: hosts.length > 0, networkRule: hosts.length ? `hook network (${label})` : null };
    const network = grant.network ? { guard: this.permissions.serverNetworkGuard(label, label, hosts) } : undefined;
    return { root: this.root, grant, hide: expandDenyGlobs(this.root, denyRead), ...(network ? { network } : {}) };
  }

  /**
   * Where a stdio MCP server runs: the same policy as a command (the workspace writable,
   * credentials and read-denied paths hidden), its network only to the hosts its configuration
   * lists. Outside it where commands run outside it, and for a server of the person's own settings
   * that says `"sandbox": false` (a repository's cannot say so); then with the reason, for the card.
   */
  private async mcpSandbox(decl: McpServerDecl): Promise<ServerPlacement> {
    if (decl.source === 'user' && decl.entry.sandbox === false) return { outside: '"sandbox": false in your settings' };
    const project = await this.project.load();
    const status = sandboxStatus(project, this.engine.sandboxMode(project), await this.sandbox.status());
    if (!status.active) return { outside: status.mode === 'off' ? 'the sandbox is off: "sandbox": "off" in .loupe/config.json or your settings' : `no OS sandbox works on this machine: ${status.reason}` };
    const hosts = decl.entry.network?.hosts ?? [];
    const denyRead = (await this.engine.rules()).filter((r) => r.kind === 'read' && r.action === 'deny').map((r) => r.pattern);
    const grant = { network: hosts.length > 0, networkRule: hosts.length ? `mcpServers.${decl.name}.network` : null };
    const network = grant.network ? { guard: this.permissions.serverNetworkGuard(decl.name, commandLine(decl.entry), hosts) } : undefined;
    return { policy: { root: this.root, grant, hide: expandDenyGlobs(this.root, denyRead), ...(network ? { network } : {}) } };
  }

  /**
   * The sandbox a hosted agent runs in: a command's policy (the workspace writable, `.git`'s config
   * and `.loupe` read-only, credentials and read-denied paths hidden), plus its own state folder
   * writable; Loupe's settings file (which may hold the person's API key) and the other agents'
   * folders hidden; its network only to the hosts its entry lists. Outside it where commands run
   * outside it.
   */
  private async agentSandbox(decl: AgentDecl, stateDir: string): Promise<SandboxPolicy | undefined> {
    const project = await this.project.load();
    if (this.engine.sandboxMode(project) === 'off' || !(await this.sandbox.status()).available) return undefined;
    const hosts = decl.entry.network?.hosts ?? [];
    const denyRead = (await this.engine.rules()).filter((r) => r.kind === 'read' && r.action === 'deny').map((r) => r.pattern);
    const others = (() => {
      try {
        return readdirSync(path.dirname(stateDir)).filter((n) => n !== path.basename(stateDir)).map((n) => path.join(path.dirname(stateDir), n));
      } catch {
        return [];
      }
    })();
    const grant = { network: hosts.length > 0, networkRule: hosts.length ? `agents.${decl.name}.network` : null };
    const network = grant.network ? { guard: this.permissions.agentNetworkGuard(decl.name, agentCommandLine(decl.entry), hosts) } : undefined;
    return { root: this.root, grant, hide: [...expandDenyGlobs(this.root, denyRead), this.user.file, ...others], writable: [stateDir], ...(network ? { network } : {}) };
  }

  /** Whether commands run sandboxed here, as the settings and the agent's system prompt say it. */
  async sandboxStatus(): Promise<SandboxStatusView> {
    const project = await this.project.load();
    return sandboxStatus(project, this.engine.sandboxMode(project), await this.sandbox.status());
  }

  /** Hears what the gate could not do as asked (a failed "allow always" save), besides the log. */
  onWarning(listener: (message: string) => void): () => void {
    this.warningListeners.add(listener);
    return () => this.warningListeners.delete(listener);
  }

  /** A watcher on this folder; whoever shows the changes starts and stops it. */
  watch(onBatch: (batch: ChangeBatch) => void, onError: (message: string) => void): WorkspaceWatcher {
    return new WorkspaceWatcher(this.root, onBatch, onError, undefined, undefined, this.journal.attach());
  }

  /** Writes what the session store still holds; questions still waiting go with the callers' aborts. */
  async dispose(): Promise<void> {
    this.warningListeners.clear();
    this.index.dispose();
    this.hooks.dispose();
    // Processes and servers first: what each wrote is recorded as it stops, before the log and snapshots close.
    await Promise.all([this.processes.dispose(), this.mcp.dispose(), this.hostedAgents.dispose()]);
    await Promise.all([this.sessions.flush(), this.modlog.dispose(), this.captures.dispose(), this.lsp.dispose(), this.worktrees.dispose()]);
  }

  private warn(message: string): void {
    this.logger.warn('permissions.warning', { root: this.root, message });
    for (const l of this.warningListeners) {
      try {
        l(message);
      } catch {
        // A broken listener must not hide the warning from the others.
      }
    }
  }
}

/** The user's settings for one config dir. Hold the result: one instance serialises its writes. */
export function openUserSettings(configDir: string, report?: (problem: ConfigProblem) => void): UserSettings {
  return new UserSettings(configDir, { report });
}

/**
 * Loupe's worktrees of the repository at `root`, without the rest of a workspace's services
 * (`loupe run --worktree` makes one before composing the worktree's own folder).
 */
export function openWorktrees(root: string, user: UserSettings, logger?: Logger): Worktrees {
  return new Worktrees(root, { folder: () => user.worktreesFolder(), setup: () => user.worktreeSetup(), spare: () => user.worktreeSpare(), report: (err) => logger?.warn('worktrees.spare', { root, error: String(err) }) });
}

/**
 * The terminals, for a front end that shows them (the app, `loupe serve`). One per host: a
 * terminal is the person's own shell and outlives a switch of folder.
 */
export function openTerminals(events: PtyEvents): PtyService {
  return new PtyService(events);
}

export function composeWorkspace(opts: ComposeOptions): WorkspaceServices {
  return new ComposedWorkspace(opts.root, opts.user, opts.asker, opts.logger, opts.reportConfig, opts.lsp, opts.env, opts.queue, opts.home);
}
