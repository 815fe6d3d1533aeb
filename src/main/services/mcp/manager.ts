// A workspace's MCP servers (docs/architecture.md, "MCP servers"), built once per workspace by the
// composition root and disposed with it. The person's own servers (their settings) start without
// asking. A repository's servers (`.loupe/config.json`, `.mcp.json`) are the repository's
// programs: they start only while the folder is trusted with those files (ProjectConfig sets them
// aside otherwise), and each only after the person approved its exact configuration on a card of
// kind `mcp-server` (remembered per folder in the settings; a changed configuration asks again;
// a refusal holds while Loupe runs). Every server connects in parallel; the manager keeps their
// statuses, their tools, and calls.
import type { McpServerView } from '../../../shared/contract';
import { commandLine, describeServer, serverDigest, transportOf, type McpServerDecl } from '../config/mcpServers';
import type { Logger } from '../log/logger';
import type { ApprovalAnswer, ApprovalRequest } from '../permissions/approvalQueue';
import type { ProjectRules } from '../permissions/projectConfig';
import type { SandboxPolicy } from '../sandbox/bwrapPolicy';
import type { CallToolResult, ElicitRequest, ElicitResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallOptions, McpConnection, ServerStatus } from './connection';
import { McpServerUnavailableError } from './errors';

/** The connection's module, with the MCP SDK behind it: loaded when a first server is named. */
const connectionClass = async (): Promise<typeof McpConnection> => (await import('./connection')).McpConnection;
import type { ServerSignIn } from './signIn';

/** Where the person's decisions about servers are kept: the user's settings, never the workspace. */
export interface McpServerStore {
  mcpServers(): McpServerDecl[];
  mcpApproval(root: string, name: string): string | null;
  approveMcpServer(root: string, name: string, digest: string): Promise<void>;
  mcpDisabled(root: string): string[];
  setMcpDisabled(root: string, name: string, disabled: boolean): Promise<void>;
}

export interface McpManagerOptions {
  root: string;
  user: McpServerStore;
  project: { load(): Promise<ProjectRules> };
  /** Asks the person (the workspace's approval queue): starting a repository's server, a server's own question. */
  ask(request: Omit<ApprovalRequest, 'id' | 'createdAt'>, signal: AbortSignal): Promise<ApprovalAnswer>;
  /** The sandbox for a stdio server, or undefined to run it outside (off, unavailable, or `"sandbox": false` from the user). */
  sandbox(decl: McpServerDecl): Promise<SandboxPolicy | undefined>;
  fetch?(decl: McpServerDecl): FetchLike | undefined;
  /** Sign-in for remote servers that require it. */
  signIn?(decl: McpServerDecl, show: (url: string) => void): ServerSignIn;
  logger: Logger;
  env?: NodeJS.ProcessEnv;
  clientInfo: { name: string; version: string };
}

/** One tool of one server, as the agent's tool source sees it. */
export interface ServerTool {
  server: string;
  tool: McpTool;
  /** The server is ready now (else a call answers MCP_SERVER_UNAVAILABLE). */
  available: boolean;
}

export class McpServers {
  private readonly connections = new Map<string, McpConnection>();
  /** session id → the servers that session brought (addSessionServers), by name. */
  private readonly sessionServers = new Map<string, Map<string, McpConnection>>();
  /** Servers of an untrusted folder: shown, never started. */
  private untrusted: McpServerDecl[] = [];
  /** name → the configuration digest the person declined to start while this process runs. */
  private readonly declined = new Map<string, string>();
  private readonly listeners = new Set<() => void>();
  private readonly stop = new AbortController();
  private syncing: Promise<void> = Promise.resolve();
  private disposed = false;
  /** `loupe run --trust`: the servers the trusted config names count as approved while this process runs. */
  private configuredApproved = false;

  constructor(private readonly opts: McpManagerOptions) {}

  /** The person approved, in advance, starting the servers the (trusted) config names now (`--trust`). */
  approveConfigured(): void {
    this.configuredApproved = true;
  }

  /** Told whenever a server's status or tools change. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Reads the configuration and starts, stops or restarts what changed; resolves once every
   * server has settled (ready, failed, stopped, or still waiting for a person who has not answered
   * when `wait` is false). Called at workspace open and whenever a config file or trust changes.
   */
  sync(opts: { wait?: boolean } = {}): Promise<void> {
    const run = this.syncing.catch(() => undefined).then(() => this.apply(opts.wait ?? true));
    this.syncing = run;
    return run;
  }

  private async apply(wait: boolean): Promise<void> {
    if (this.disposed) return;
    const project = await this.opts.project.load();
    const user = this.opts.user.mcpServers();
    const own = project.mcpServers ?? [];
    // The person's server wins a name both use: a repository cannot replace it.
    const wanted = [...user, ...own.filter((d) => !user.some((u) => u.name === d.name))];
    this.untrusted = (project.ignored?.mcpServers ?? []).filter((d) => !wanted.some((w) => w.name === d.name));
    const starts: Promise<void>[] = [];
    for (const [name, c] of this.connections) {
      const now = wanted.find((d) => d.name === name);
      if (now && serverDigest(now) === c.digest && now.source === c.decl.source) continue;
      this.connections.delete(name);
      await c.stop('removed from the configuration');
    }
    const fresh = wanted.filter((d) => !this.connections.has(d.name));
    // The MCP SDK (its schemas, its validator) is loaded only once a server is named: most folders name none.
    const Connection = fresh.length ? await connectionClass() : null;
    if (this.disposed) return;
    for (const decl of fresh) {
      if (!Connection || this.connections.has(decl.name)) continue;
      const c = this.connection(Connection, decl);
      this.connections.set(decl.name, c);
      starts.push(this.begin(c));
    }
    this.changed();
    if (wait) await Promise.all(starts);
  }

  private connection(Connection: typeof McpConnection, decl: McpServerDecl): McpConnection {
    return new Connection(decl, serverDigest(decl), {
      root: this.opts.root,
      logger: this.opts.logger,
      env: this.opts.env ?? process.env,
      clientInfo: this.opts.clientInfo,
      sandbox: (d) => this.opts.sandbox(d),
      elicit: (server, params, signal) => this.elicit(server, params, signal),
      ...(this.opts.fetch ? { fetch: (d: McpServerDecl) => this.opts.fetch!(d) } : {}),
      ...(this.opts.signIn ? { signIn: (d: McpServerDecl, show: (url: string) => void) => this.opts.signIn!(d, show) } : {}),
      changed: () => this.changed(),
    });
  }

  /**
   * Servers one chat session brought with it (an ACP client's `mcpServers`): the person's own,
   * started at once like those of their settings, offered to that session only, and stopped with
   * it. A name the configuration already uses keeps the configured server (`skipped` names them).
   * Resolves once each has settled.
   */
  async addSessionServers(session: string, decls: McpServerDecl[]): Promise<{ skipped: string[] }> {
    if (this.disposed) return { skipped: [] };
    await this.removeSessionServers(session);
    const Connection = decls.length ? await connectionClass() : null;
    const own = new Map<string, McpConnection>();
    const skipped: string[] = [];
    for (const decl of decls) {
      if (this.connections.has(decl.name) || own.has(decl.name)) skipped.push(decl.name);
      else if (Connection) own.set(decl.name, this.connection(Connection, { ...decl, source: 'user' }));
    }
    this.sessionServers.set(session, own);
    await Promise.all([...own.values()].map((c) => c.start()));
    return { skipped };
  }

  /** Stops the servers a session brought (the session closed). */
  async removeSessionServers(session: string): Promise<void> {
    const own = this.sessionServers.get(session);
    if (!own) return;
    this.sessionServers.delete(session);
    await Promise.all([...own.values()].map((c) => c.stop('the session closed')));
  }

  /** A server by name as one session sees it: the configured one, else the session's own. */
  private find(server: string, session?: string): McpConnection | undefined {
    return this.connections.get(server) ?? (session ? this.sessionServers.get(session)?.get(server) : undefined);
  }

  /** Starts a new server if nothing holds it back: disabled, declined, or not yet approved. */
  private async begin(c: McpConnection): Promise<void> {
    const { name, entry, source } = c.decl;
    if (entry.disabled) return c.hold('stopped', `disabled ("disabled": true in ${c.decl.file})`);
    if (this.opts.user.mcpDisabled(this.opts.root).includes(name)) return c.hold('stopped', 'disabled in this folder');
    if (source === 'project' && !this.configuredApproved && this.opts.user.mcpApproval(this.opts.root, name) !== c.digest) {
      if (this.declined.get(name) === c.digest) return c.hold('stopped', 'you declined to start it');
      c.hold('pending', 'waiting for your approval to start it');
      const answer = await this.approve(c).catch(() => ({ answer: 'deny' as const, unattended: true as const }));
      if (this.connections.get(name) !== c || this.disposed) return;
      if (answer.answer === 'deny') {
        if (!('unattended' in answer && answer.unattended)) this.declined.set(name, c.digest);
        return c.hold('stopped', 'unattended' in answer && answer.unattended ? 'nobody could approve starting it here (run with --trust to approve the servers a trusted config names)' : 'you declined to start it');
      }
      if (answer.answer === 'always') await this.opts.user.approveMcpServer(this.opts.root, name, c.digest).catch((err) => this.opts.logger.warn('mcp.approval_not_saved', { server: name, error: err }));
    }
    await c.start();
  }

  private approve(c: McpConnection): Promise<ApprovalAnswer> {
    const d = c.decl;
    const where = transportOf(d.entry) === 'stdio' ? 'a program from this repository' : 'a remote server this repository names';
    return this.opts.ask(
      {
        kind: 'mcp-server',
        tool: d.name,
        summary: `start the MCP server "${d.name}": ${commandLine(d.entry)}`,
        reason: `${d.file} names it; it is ${where}, so it starts only with your approval of this exact configuration (asked again if it changes)`,
        rule: null,
        always: [],
        details: describeServer(d),
      },
      this.stop.signal,
    );
  }

  /** A server's question as a card (`elicitation`): accepting applies the form's defaults, anything else declines. */
  private async elicit(server: string, params: ElicitRequest['params'], signal: AbortSignal): Promise<ElicitResult> {
    const fields = 'requestedSchema' in params ? Object.entries(params.requestedSchema.properties ?? {}).map(([k, v]) => `${k}${'default' in v && v.default !== undefined ? ` = ${JSON.stringify(v.default)}` : ''}${v.description ? ` (${v.description})` : ''}`) : [];
    const answer = await this.opts
      .ask(
        {
          kind: 'elicitation',
          tool: server,
          summary: params.message,
          reason: `the MCP server "${server}" asks; accepting answers with its defaults`,
          rule: null,
          always: [],
          ...(fields.length ? { details: fields.join('\n') } : {}),
        },
        signal,
      )
      .catch(() => ({ answer: 'deny' as const }));
    // The SDK fills in the form's defaults for what an accepted answer leaves out.
    return answer.answer === 'deny' ? { action: 'decline' } : { action: 'accept', content: {} };
  }

  /** The tools of every server that has listed some (ready, or down and expected back), and those of `session`'s own servers. */
  tools(session?: string): ServerTool[] {
    const own = session ? [...(this.sessionServers.get(session)?.values() ?? [])] : [];
    return [...this.connections.values(), ...own].flatMap((c) => (c.tools.length && c.status !== 'stopped' ? c.tools.map((tool) => ({ server: c.name, tool, available: c.status === 'ready' })) : []));
  }

  call(server: string, tool: string, args: Record<string, unknown>, opts: CallOptions & { session?: string }): Promise<CallToolResult> {
    const c = this.find(server, opts.session);
    if (!c) return Promise.reject(this.unavailable(server, opts.session));
    return c.call(tool, args, opts);
  }

  /** Every server the configuration names, started or not, and `session`'s own (a tool name of theirs is theirs even while they list none). */
  names(session?: string): string[] {
    const own = session ? [...(this.sessionServers.get(session)?.keys() ?? [])] : [];
    return [...new Set([...this.connections.keys(), ...this.untrusted.map((d) => d.name), ...own])];
  }

  /** Waits while the server is starting, at most its call timeout (or until `signal` aborts). */
  async settled(server: string, signal: AbortSignal, session?: string): Promise<void> {
    const c = this.find(server, session);
    await c?.settled(c.callTimeoutMs, signal);
  }

  /** Why a call cannot go to this server now: its status, what it waits for, the end of its stderr. */
  unavailable(server: string, session?: string): McpServerUnavailableError {
    const c = this.find(server, session);
    if (c) return c.unavailable();
    const held = this.untrusted.find((d) => d.name === server);
    if (held) return new McpServerUnavailableError(server, `not started: waiting for you to trust this folder with ${held.file}.`, { status: 'pending' });
    return new McpServerUnavailableError(server, 'it is not configured (any more).');
  }

  /** Whether a call to this server could write the workspace (a local program, or a server on this machine). */
  local(server: string, session?: string): boolean {
    const c = this.find(server, session);
    if (!c) return false;
    if (transportOf(c.decl.entry) === 'stdio') return true;
    const host = new URL(c.decl.entry.url!).hostname.replace(/^\[|\]$/g, '');
    return host === 'localhost' || host === '::1' || /^127\./.test(host);
  }

  list(): McpServerView[] {
    const views = [...this.connections.values()].map((c): McpServerView => this.view(c.decl, c.status, c.detail, c));
    for (const d of this.untrusted) views.push(this.view(d, 'pending', `not started: waiting for you to trust this folder with ${d.file}`, null));
    return views;
  }

  /** The view says the fixed vocabulary: a connection stopped (disabled, declined, closed) waits for the person. */
  private view(d: McpServerDecl, status: ServerStatus, detail: string | null, c: McpConnection | null): McpServerView {
    const disabled = Boolean(d.entry.disabled) || this.opts.user.mcpDisabled(this.opts.root).includes(d.name);
    return {
      name: d.name,
      source: d.source,
      file: d.file,
      transport: transportOf(d.entry),
      target: commandLine(d.entry),
      status: status === 'stopped' ? 'pending' : status,
      detail,
      tools: c?.tools.map((t) => t.name) ?? [],
      stderr: c ? c.stderr.slice(-20) : [],
      sandboxed: c?.sandboxed ?? null,
      disabled,
      restartable: c !== null && !disabled && status !== 'pending',
      restarts: c?.restarts ?? 0,
      ...(c?.signInUrl ? { sign_in_url: c.signInUrl } : {}),
    };
  }

  /** Stops and starts a server again; a refusal or a failure is forgotten, so a repository's server asks again. */
  async restart(name: string): Promise<void> {
    const c = this.connections.get(name);
    if (!c) throw new McpServerUnavailableError(name, 'there is no such server.');
    this.declined.delete(name);
    if (c.status === 'pending') return;
    await c.stop('restarting');
    this.connections.delete(name);
    await this.sync();
  }

  /** Disables (stops, and keeps stopped in this folder) or enables a server. */
  async setDisabled(name: string, disabled: boolean): Promise<void> {
    await this.opts.user.setMcpDisabled(this.opts.root, name, disabled);
    const c = this.connections.get(name);
    if (c) {
      await c.stop(disabled ? 'disabled in this folder' : 'enabling');
      this.connections.delete(name);
    }
    await this.sync();
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.stop.abort();
    const all = [...this.connections.values(), ...[...this.sessionServers.values()].flatMap((m) => [...m.values()])];
    this.connections.clear();
    this.sessionServers.clear();
    await Promise.all(all.map((c) => c.stop('the workspace closed')));
    this.listeners.clear();
  }

  private changed(): void {
    for (const l of this.listeners) {
      try {
        l();
      } catch {
        // A broken listener must not stop the others.
      }
    }
  }
}
