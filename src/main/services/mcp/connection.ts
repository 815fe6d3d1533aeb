// One MCP server as Loupe's client sees it (docs/architecture.md, "MCP servers"): started (stdio)
// or reached (streamable HTTP, falling back to SSE), `initialize` within its connect timeout, its
// tools listed and followed through `notifications/tools/list_changed`; `roots/list` answered
// with the workspace and `elicitation/create` sent to whoever answers the workspace's questions.
// A server that dies after it was ready is started again with backoff; meanwhile its tools stay
// known and every call answers MCP_SERVER_UNAVAILABLE saying why. Its status always says what is
// happening, in words the settings and `loupe run` show.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolResultSchema, ElicitRequestSchema, ErrorCode, ListRootsRequestSchema, McpError, type CallToolResult, type ElicitRequest, type ElicitResult, type Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { AbortedError } from '../../errors';
import { DEFAULT_CALL_TIMEOUT_MS, DEFAULT_CONNECT_TIMEOUT_MS, commandLine, expandEnv, transportOf, type McpServerDecl } from '../config/mcpServers';
import type { Logger } from '../log/logger';
import type { McpServerStatus } from '../../../shared/contract';
import type { SandboxPolicy } from '../sandbox/bwrapPolicy';
import { McpServerUnavailableError, McpTimeoutError, McpToolError } from './errors';
import { launchServer, type ServerLaunch } from './launchServer';
import { SpawnedStdioTransport } from './stdioTransport';
import type { ServerSignIn } from './signIn';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';

/** The connection's own state; the settings' fixed vocabulary shows `stopped` as `pending` (manager.ts). */
export type ServerStatus = 'pending' | 'connecting' | 'ready' | 'failed' | 'stopped';

/** Restart delays after a crash, in order; past the last one the server stays failed until restarted by hand. */
export const RESTART_DELAYS_MS = [1000, 2000, 4000, 8000, 16_000];
/** A server that stays up this long has its restart count forgiven. */
const STABLE_MS = 60_000;
const STDERR_LINES = 40;
const GARBAGE_LINES = 5;

export interface ConnectionDeps {
  root: string;
  logger: Logger;
  env: NodeJS.ProcessEnv;
  /** Loupe's name and version, as `initialize` tells the server. */
  clientInfo: { name: string; version: string };
  /** The sandbox a stdio server runs in; undefined: outside it. Decided per server by the manager. */
  sandbox(decl: McpServerDecl): Promise<SandboxPolicy | undefined>;
  /** A server's question, answered through the workspace's approval queue. */
  elicit(server: string, params: ElicitRequest['params'], signal: AbortSignal): Promise<ElicitResult>;
  /** The fetch a remote server is reached with, or undefined for plain fetch. */
  fetch?(decl: McpServerDecl): FetchLike | undefined;
  /** Sign-in for a remote server that requires it; `show` is told the page to open. */
  signIn?(decl: McpServerDecl, show: (url: string) => void): ServerSignIn;
  changed(): void;
}

export interface CallOptions {
  signal: AbortSignal;
  onProgress?: (progress: number, total: number | undefined, message: string | undefined) => void;
  /** The call waits for the person to sign in again (a scope it needs): the page to open. */
  onSignIn?: (url: string) => void;
}

export class McpConnection {
  status: ServerStatus = 'pending';
  /** Why it is in this status, in a sentence; null when ready. */
  detail: string | null = null;
  tools: McpTool[] = [];
  readonly stderr: string[] = [];
  readonly garbage: string[] = [];
  restarts = 0;
  sandboxed: boolean | null = null;
  /** While it waits for the person to sign in: where. */
  signInUrl: string | null = null;
  private client: Client | null = null;
  private launch: ServerLaunch | null = null;
  private signIn: ServerSignIn | null = null;
  /** The streamable HTTP transport of a remote server, for finishing a sign-in asked for mid-call. */
  private http: StreamableHTTPClientTransport | null = null;
  private exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  private restartTimer: NodeJS.Timeout | null = null;
  private readyAt = 0;
  private generation = 0;
  private starting: Promise<void> | null = null;
  /** Told at each status change: calls waiting for a server that is starting. */
  private readonly waiters = new Set<() => void>();

  constructor(
    readonly decl: McpServerDecl,
    readonly digest: string,
    private readonly deps: ConnectionDeps,
  ) {}

  get name(): string {
    return this.decl.name;
  }

  /** Sets a status that is not the connection's own doing (waiting for approval, disabled, declined). */
  hold(status: 'pending' | 'stopped', detail: string): void {
    this.set(status, detail);
  }

  /** Starts it (once at a time); resolves when it is ready or has failed. */
  start(): Promise<void> {
    this.starting ??= this.connect().finally(() => (this.starting = null));
    return this.starting;
  }

  private set(status: ServerStatus, detail: string | null): void {
    this.status = status;
    this.detail = detail;
    for (const wake of [...this.waiters]) wake();
    this.deps.changed();
  }

  /** The status as the settings and tools say it (stopped is the person's move: pending). */
  get shownStatus(): McpServerStatus {
    return this.status === 'stopped' ? 'pending' : this.status;
  }

  /**
   * Resolves once it is no longer connecting (ready, failed, or waiting for the person), after
   * `ms`, or when `signal` aborts, whichever comes first. The timer keeps the process alive while
   * a call waits (`loupe run` has nothing else to wait on then).
   */
  settled(ms: number, signal: AbortSignal): Promise<void> {
    if (this.status !== 'connecting' || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.waiters.delete(check);
        resolve();
      };
      const check = () => this.status !== 'connecting' && done();
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
      this.waiters.add(check);
    });
  }

  /** The call timeout of this server (`timeout_ms`). */
  get callTimeoutMs(): number {
    return this.decl.entry.timeout_ms ?? DEFAULT_CALL_TIMEOUT_MS;
  }

  private async connect(): Promise<void> {
    const gen = ++this.generation;
    this.exit = null;
    this.garbage.length = 0;
    this.signInUrl = null;
    this.set('connecting', this.restarts ? `restarting (attempt ${this.restarts} of ${RESTART_DELAYS_MS.length})` : 'starting');
    const timeoutMs = this.decl.entry.connect_timeout_ms ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), timeoutMs);
    try {
      const client = await this.open(ac.signal, timeoutMs);
      if (gen !== this.generation) return void (await client.close().catch(() => undefined));
      this.client = client;
      this.tools = await this.signedIn(() => listTools(client, ac.signal, timeoutMs));
      this.readyAt = Date.now();
      this.set('ready', null);
      this.deps.logger.info('mcp.ready', { server: this.name, tools: this.tools.length, sandboxed: this.sandboxed });
    } catch (err) {
      if (gen !== this.generation) return;
      const why = this.failure(err, ac.signal.aborted, timeoutMs);
      await this.teardown();
      this.set('failed', why);
      this.deps.logger.warn('mcp.failed', { server: this.name, reason: why });
    } finally {
      clearTimeout(timer);
    }
  }

  /** A connected, initialized client over the configured transport. */
  private async open(signal: AbortSignal, timeoutMs: number): Promise<Client> {
    const entry = this.decl.entry;
    const kind = transportOf(entry);
    if (kind === 'stdio') return this.initialize(await this.stdio(), signal, timeoutMs);
    this.sandboxed = null;
    const url = new URL(entry.url!);
    const headers = expandEnv(entry.headers, this.deps.env, `mcpServers.${this.name}.headers`);
    const fetch = this.deps.fetch?.(this.decl);
    const init = { requestInit: { headers }, ...(fetch ? { fetch } : {}) };
    if (kind === 'sse') return this.initialize(new SSEClientTransport(url, init), signal, timeoutMs);
    this.signIn ??= this.deps.signIn?.(this.decl, (page) => {
      this.signInUrl = page;
      this.set('pending', `waiting for you to sign in at ${page}`);
      this.deps.logger.warn('mcp.sign_in', { server: this.name, url: page });
    }) ?? null;
    await this.signIn?.listen();
    const authed = { ...init, ...(this.signIn ? { authProvider: this.signIn } : {}) };
    const transport = (this.http = new StreamableHTTPClientTransport(url, authed));
    try {
      return await this.initialize(transport, signal, timeoutMs);
    } catch (err) {
      if (err instanceof UnauthorizedError && this.signIn) {
        // The person signs in in their own time; then the code is exchanged and it connects again.
        const code = await this.signIn.received();
        await transport.finishAuth(code);
        this.signInUrl = null;
        this.set('connecting', 'signed in; connecting');
        this.http = new StreamableHTTPClientTransport(url, authed);
        return this.initialize(this.http, AbortSignal.timeout(timeoutMs), timeoutMs);
      }
      // A server of the older HTTP+SSE transport refuses the POST of streamable HTTP (404, 405, 400).
      if (!(err instanceof StreamableHTTPError) || ![400, 404, 405].includes(err.code ?? 0) || signal.aborted) throw err;
      this.deps.logger.info('mcp.sse_fallback', { server: this.name, status: err.code });
      return this.initialize(new SSEClientTransport(url, init), signal, timeoutMs);
    }
  }

  private async stdio(): Promise<Transport> {
    const policy = await this.deps.sandbox(this.decl);
    this.sandboxed = !!policy;
    const marker = `mcp-${this.name}-${randomBytes(4).toString('hex')}`;
    this.launch = await launchServer(this.deps.root, this.decl, this.deps.env, policy, marker);
    return new SpawnedStdioTransport(this.launch.spec, {
      stderr: (line) => {
        this.stderr.push(line);
        if (this.stderr.length > STDERR_LINES) this.stderr.splice(0, this.stderr.length - STDERR_LINES);
      },
      garbage: (line) => {
        if (this.garbage.length < GARBAGE_LINES) this.garbage.push(line.length > 200 ? `${line.slice(0, 200)}…` : line);
      },
      exited: (code, sig) => (this.exit = { code, signal: sig }),
    });
  }

  private async initialize(transport: Transport, signal: AbortSignal, timeoutMs: number): Promise<Client> {
    const client = new Client(this.deps.clientInfo, {
      capabilities: { roots: { listChanged: false }, elicitation: { form: { applyDefaults: true } } },
      // A server's structuredContent is shown as it comes, not refused for disagreeing with its
      // own outputSchema (and compiling every output schema at each listing costs a start).
      jsonSchemaValidator: { getValidator: () => (input: unknown) => ({ valid: true, data: input, errorMessage: undefined }) } as never,
      listChanged: { tools: { autoRefresh: true, debounceMs: 100, onChanged: (error, tools) => this.toolsChanged(error, tools) } },
    });
    const root = this.deps.root;
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: pathToFileURL(root).href, name: path.basename(root) }] }));
    client.setRequestHandler(ElicitRequestSchema, (req, extra) => this.deps.elicit(this.name, req.params, extra.signal));
    const gen = this.generation;
    client.onclose = () => void this.closed(gen);
    try {
      await client.connect(transport, { signal, timeout: timeoutMs });
    } catch (err) {
      await client.close().catch(() => undefined);
      throw err;
    }
    return client;
  }

  private toolsChanged(error: Error | null, tools: McpTool[] | null): void {
    if (error || !tools) {
      this.deps.logger.warn('mcp.list_failed', { server: this.name, error });
      return;
    }
    this.tools = tools;
    this.deps.logger.info('mcp.tools_changed', { server: this.name, tools: tools.length });
    this.deps.changed();
  }

  /** The connection ended. After ready, unasked: a crash, answered with a restart after a pause. */
  private async closed(gen: number): Promise<void> {
    if (gen !== this.generation || this.status !== 'ready') return;
    this.client = null;
    await this.teardown();
    if (Date.now() - this.readyAt > STABLE_MS) this.restarts = 0;
    const how = this.exitWords() ?? 'closed the connection';
    const delay = RESTART_DELAYS_MS[this.restarts];
    this.deps.logger.warn('mcp.crashed', { server: this.name, how, restarts: this.restarts, stderr: this.stderr.slice(-5) });
    if (delay === undefined) {
      this.set('failed', `${how}; it was restarted ${this.restarts} times and keeps stopping, so it stays stopped until you restart it${this.stderrWords()}`);
      return;
    }
    this.restarts++;
    this.set('connecting', `${how}; restarting in ${delay / 1000} s (attempt ${this.restarts} of ${RESTART_DELAYS_MS.length})`);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      if (gen === this.generation) void this.start();
    }, delay);
    this.restartTimer.unref();
  }

  /**
   * Calls a tool of this server; a coded error when it cannot, never a raw transport error. A
   * server that is starting is waited for, at most the call's timeout.
   */
  async call(tool: string, args: Record<string, unknown>, opts: CallOptions): Promise<CallToolResult> {
    const timeoutMs = this.callTimeoutMs;
    await this.settled(timeoutMs, opts.signal);
    if (opts.signal.aborted) throw new AbortedError(`The call to ${this.name}/${tool}`);
    const client = this.client;
    if (this.status !== 'ready' || !client) throw this.unavailable();
    // The SDK never removes the listener it adds to a call's signal: each call gets its own,
    // tied to the caller's for as long as the call runs, so a long request's signal does not collect them.
    const own = new AbortController();
    const forward = () => own.abort(opts.signal.reason);
    if (opts.signal.aborted) forward();
    else opts.signal.addEventListener('abort', forward, { once: true });
    const send = async () =>
      (await client.callTool({ name: tool, arguments: args }, CallToolResultSchema, {
        signal: own.signal,
        timeout: timeoutMs,
        // A server that reports progress is working: its time is counted from its last report, up to 10 timeouts in all.
        resetTimeoutOnProgress: true,
        maxTotalTimeout: timeoutMs * 10,
        ...(opts.onProgress ? { onprogress: (p: { progress: number; total?: number; message?: string }) => opts.onProgress!(p.progress, p.total, p.message) } : {}),
      })) as CallToolResult;
    try {
      return await this.signedIn(send, opts);
    } catch (err) {
      if (opts.signal.aborted) throw new AbortedError(`The call to ${this.name}/${tool}`);
      if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) throw new McpTimeoutError(this.name, tool, timeoutMs);
      if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) {
        // The process may still be on its way out: give its exit a moment to be told.
        await new Promise((r) => setTimeout(r, 50));
        throw this.unavailable(`it stopped during the call (${this.exitWords() ?? 'the connection closed'})${this.stderrWords()}`);
      }
      if (err instanceof McpError) throw new McpToolError(this.name, tool, err.message.replace(/^MCP error -?\d+: /, ''));
      if (this.status !== 'ready') throw this.unavailable();
      throw new McpToolError(this.name, tool, (err as Error).message);
    } finally {
      opts.signal.removeEventListener('abort', forward);
    }
  }

  /**
   * Runs `request`; when the server asks for (more) sign-in on the way (a 401, or a 403 for a
   * scope this request needs), the page is shown (the settings row, `loupe run`, and the call's
   * own `onSignIn`), the person's sign-in awaited (until `signal` aborts), then the request runs
   * again (twice at most). The status it had before comes back either way.
   */
  private async signedIn<T>(request: () => Promise<T>, opts: { signal?: AbortSignal; onSignIn?: (url: string) => void } = {}): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const was = this.status;
      const detail = this.detail;
      try {
        return await request();
      } catch (err) {
        if (!(err instanceof UnauthorizedError) || !this.signIn || !this.http || attempt >= 2) throw err;
        if (this.signInUrl) opts.onSignIn?.(this.signInUrl);
        try {
          await this.http.finishAuth(await untilAborted(this.signIn.received(), opts.signal));
        } finally {
          this.signInUrl = null;
          this.set(was, was === 'ready' ? null : was === 'connecting' ? 'signed in; connecting' : detail);
        }
      }
    }
  }

  /** Stops it (no restart), keeping what it said for the status. */
  async stop(detail: string): Promise<void> {
    this.generation++;
    this.signIn?.close();
    this.signIn = null;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
    await this.teardown();
    this.set('stopped', detail);
  }

  /** Stops and starts again, the restart count forgiven (the settings' Restart). */
  async restart(): Promise<void> {
    await this.stop('restarting');
    this.restarts = 0;
    this.stderr.length = 0;
    await this.start();
  }

  private async teardown(): Promise<void> {
    const client = this.client;
    this.client = null;
    await client?.close().catch(() => undefined);
    this.launch?.close();
    this.launch = null;
  }

  private exitWords(): string | null {
    if (!this.exit) return null;
    return this.exit.signal ? `it was killed by ${this.exit.signal}` : `it exited with code ${this.exit.code}`;
  }

  /** The last lines it wrote on stderr, the blank ones left out. */
  private stderrTail(): string[] {
    return this.stderr.filter((l) => l.trim()).slice(-3);
  }

  private stderrWords(): string {
    const tail = this.stderrTail();
    return tail.length ? `; its stderr ends: ${tail.join(' | ')}` : '';
  }

  /** Why a call cannot go to it now: its status, what it is waiting for, and the end of its stderr. */
  unavailable(why?: string): McpServerUnavailableError {
    const words = why ?? this.unavailableWords();
    const stderr = this.stderrTail();
    return new McpServerUnavailableError(this.name, words, { status: this.shownStatus, stderr });
  }

  private unavailableWords(): string {
    const detail = this.detail ?? (this.status === 'connecting' ? 'it is starting' : this.status === 'pending' ? 'it waits for approval' : this.status === 'stopped' ? 'it is stopped' : 'it failed');
    // The status detail of a failure names the stderr already; a start or a wait does not.
    const said = detail.includes('its stderr ends:') ? detail : `${detail}${this.stderrWords()}`;
    return this.status === 'connecting' ? `${said}. Try again in a moment.` : `${said}.`;
  }

  /** Why connecting failed, in words that point at the cause. */
  private failure(err: unknown, timedOut: boolean, timeoutMs: number): string {
    const secs = `${Math.round(timeoutMs / 100) / 10} s`;
    const printed = this.garbage.length ? `; it printed this on stdout instead of JSON-RPC: ${JSON.stringify(this.garbage[0])}` : '';
    // Timed out first: the SDK closes the transport on the timeout, so the server's exit then is ours.
    if (timedOut || (err instanceof McpError && err.code === ErrorCode.RequestTimeout)) return `it did not answer initialize within ${secs}${printed}${this.stderrWords()}`;
    if (this.exit) return `${this.exitWords()} before it answered initialize${printed}${this.stderrWords()}`;
    const message = (err as Error)?.message ?? String(err);
    if ((err as NodeJS.ErrnoException)?.code === 'ENOENT') return `${commandLine(this.decl.entry).split(' ')[0]} was not found (${message})`;
    return `${message}${printed}${this.stderrWords()}`;
  }
}

/** `promise`, or a rejection as soon as `signal` aborts (the promise itself goes on). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(new AbortedError('Waiting for the sign-in'));
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(new AbortedError('Waiting for the sign-in'));
    signal.addEventListener('abort', stop, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
  });
}

/** Every page of tools/list. */
async function listTools(client: Client, signal: AbortSignal, timeoutMs: number): Promise<McpTool[]> {
  if (!client.getServerCapabilities()?.tools) return [];
  const tools: McpTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const r = await client.listTools(cursor ? { cursor } : undefined, { signal, timeout: timeoutMs });
    tools.push(...r.tools);
    if (!r.nextCursor) break;
    cursor = r.nextCursor;
  }
  return tools;
}
