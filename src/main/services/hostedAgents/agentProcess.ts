// One hosted agent's program and Loupe's ACP client connection to it (docs/architecture.md, "Hosted
// agents"). The program runs as the sandbox launch says (bwrap around it, the workspace and its own
// state folder writable, its network only through the filtering proxy), in its own process group
// with a command marker, so ending it ends everything it started. Loupe is the client: it answers
// the agent's `session/request_permission`, `fs/*` and updates through the handlers it is given,
// and offers no terminal (the agent runs its commands itself, inside the sandbox).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import {
  client,
  ndJsonStream,
  RequestError,
  type ClientConnection,
  type InitializeResponse,
  type McpServer,
  type NewSessionResponse,
  type LoadSessionResponse,
  type PromptResponse,
  type ContentBlock,
  type ReadTextFileRequest,
  type ReadTextFileResponse,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
  type WriteTextFileRequest,
} from '@agentclientprotocol/sdk';
import { ProcessFamily } from '../shell/processReaper';
import { COMMAND_MARKER } from '../shell/cleanEnv';
import type { Launch } from '../sandbox/launch';
import type { NetworkActivity } from '../sandbox/net/types';
import { AgentUnavailableError } from './errors';

/** What Loupe answers for the agent: one handler per client method it implements. */
export interface AgentClientHandlers {
  update(params: SessionNotification): void;
  permission(params: RequestPermissionRequest, signal: AbortSignal): Promise<RequestPermissionResponse>;
  readTextFile(params: ReadTextFileRequest): Promise<ReadTextFileResponse>;
  writeTextFile(params: WriteTextFileRequest): Promise<void>;
}

export interface AgentSpawn {
  /** The agent's name (`acp:<name>` on its changes). */
  name: string;
  program: string;
  argv: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** The sandbox launch it runs under (closed when it ends); null outside the sandbox. */
  launch: Launch | null;
}

/** How long the agent has to answer `initialize` and `session/new` (a cold start of a big program on a busy machine). */
const START_TIMEOUT_MS = 120_000;
/** Lines of its stderr kept, for a failure to say what the program printed. */
const STDERR_KEEP = 40;

export class AgentProcess {
  private readonly child: ChildProcess;
  private readonly family: ProcessFamily;
  private readonly connection: ClientConnection;
  private readonly errLines: string[] = [];
  private exitNote: string | null = null;
  readonly exited: Promise<void>;
  private stopping: Promise<void> | null = null;
  init: InitializeResponse | null = null;

  private constructor(
    readonly spec: AgentSpawn,
    child: ChildProcess,
    marker: string,
    handlers: AgentClientHandlers,
  ) {
    this.child = child;
    this.family = new ProcessFamily(child.pid!, marker, 1000);
    this.family.watch();
    let errTail = '';
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (d: string) => {
      const lines = (errTail + d).split('\n');
      errTail = lines.pop() ?? '';
      this.errLines.push(...lines.filter((l) => l.trim()));
      if (this.errLines.length > STDERR_KEEP) this.errLines.splice(0, this.errLines.length - STDERR_KEEP);
    });
    this.exited = new Promise((resolve) =>
      child.once('close', (code, signal) => {
        this.exitNote = signal ? `ended by ${signal}` : `exited with code ${code}`;
        this.family.stopWatching();
        this.connection?.close(new AgentUnavailableError(spec.name, `its program ${this.exitNote}${this.stderrNote()}`));
        spec.launch?.close();
        resolve();
      }),
    );
    const app = client({ name: 'loupe' })
      .onNotification('session/update', ({ params }) => handlers.update(params))
      .onRequest('session/request_permission', ({ params, signal }) => handlers.permission(params, signal))
      .onRequest('fs/read_text_file', ({ params }) => handlers.readTextFile(params))
      .onRequest('fs/write_text_file', async ({ params }) => {
        await handlers.writeTextFile(params);
        return {};
      })
      // Loupe offers no terminal: an agent that asks anyway is told the method is not there.
      .onRequest('terminal/create', () => {
        throw RequestError.methodNotFound('terminal/create');
      });
    child.stdin!.on('error', () => undefined);
    this.connection = app.connect(ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>));
  }

  /** Starts the program and answers once it has said what it is (`initialize`). */
  static async start(spec: AgentSpawn, handlers: AgentClientHandlers, signal?: AbortSignal): Promise<AgentProcess> {
    const marker = `agent-${spec.name}-${randomUUID()}`;
    const child = spawn(spec.program, spec.argv, { cwd: spec.cwd, env: { ...spec.env, [COMMAND_MARKER]: marker }, detached: true, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
    try {
      await new Promise<void>((resolve, reject) => {
        child.once('spawn', resolve);
        child.once('error', reject);
      });
    } catch (err) {
      spec.launch?.close();
      throw new AgentUnavailableError(spec.name, `its program could not start (${(err as Error).message})`);
    }
    const p = new AgentProcess(spec, child, marker, handlers);
    try {
      p.init = await p.within(
        p.connection.agent.request('initialize', {
          protocolVersion: 1,
          // Reads happen in its sandbox, where the read rules' paths are hidden; writes come to Loupe.
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: true }, terminal: false },
          clientInfo: { name: 'loupe', title: 'Loupe', version: '0' },
        }),
        'initialize',
        signal,
      );
    } catch (err) {
      await p.stop(0);
      throw err;
    }
    return p;
  }

  /** The last lines the program printed on stderr, for a message. */
  stderr(): string[] {
    return [...this.errLines];
  }

  private stderrNote(): string {
    const tail = this.errLines.slice(-3).join(' | ');
    return tail ? `; it printed: ${tail.slice(0, 400)}` : '';
  }

  get alive(): boolean {
    return this.exitNote === null;
  }

  /** What its network did through the sandbox's proxy: hosts reached and refused. */
  network(): NetworkActivity {
    return this.spec.launch?.net?.activity() ?? { reached: [], refused: [] };
  }

  private async within<T>(p: Promise<T>, what: string, signal?: AbortSignal): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const onAbort = () => undefined;
    try {
      return await Promise.race([
        p,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new AgentUnavailableError(this.spec.name, `it did not answer ${what} within ${START_TIMEOUT_MS / 1000} s${this.stderrNote()}`)), START_TIMEOUT_MS);
          signal?.addEventListener('abort', () => reject(new AgentUnavailableError(this.spec.name, `${what} was stopped`)), { once: true });
        }),
        this.exited.then(() => {
          throw new AgentUnavailableError(this.spec.name, `its program ${this.exitNote}${this.stderrNote()}`);
        }),
      ]);
    } catch (err) {
      if (err instanceof RequestError || (err && typeof err === 'object' && 'code' in err && 'message' in err && !(err instanceof Error))) {
        throw new AgentUnavailableError(this.spec.name, `it refused ${what}: ${(err as { message: string }).message}${this.stderrNote()}`);
      }
      throw err;
    } finally {
      clearTimeout(timer);
      void onAbort;
    }
  }

  newSession(cwd: string, mcpServers: McpServer[], signal?: AbortSignal): Promise<NewSessionResponse> {
    return this.within(this.connection.agent.request('session/new', { cwd, mcpServers }), 'session/new', signal);
  }

  /** Opens a session it kept (its history is replayed as updates, which the caller may ignore). */
  loadSession(sessionId: string, cwd: string, mcpServers: McpServer[], signal?: AbortSignal): Promise<LoadSessionResponse> {
    return this.within(this.connection.agent.request('session/load', { sessionId, cwd, mcpServers }), 'session/load', signal);
  }

  async setMode(sessionId: string, modeId: string): Promise<void> {
    await this.connection.agent.request('session/set_mode', { sessionId, modeId });
  }

  async setConfigOption(sessionId: string, configId: string, value: string): Promise<void> {
    await this.connection.agent.request('session/set_config_option', { sessionId, configId, value });
  }

  /** One turn: resolves with its stop reason once the agent has finished (or was cancelled). */
  prompt(sessionId: string, prompt: ContentBlock[]): Promise<PromptResponse> {
    return Promise.race([
      this.connection.agent.request('session/prompt', { sessionId, prompt }),
      this.exited.then(() => {
        throw new AgentUnavailableError(this.spec.name, `its program ${this.exitNote}${this.stderrNote()}`);
      }),
    ]);
  }

  cancel(sessionId: string): void {
    if (this.alive) void this.connection.agent.notify('session/cancel', { sessionId }).catch(() => undefined);
  }

  /**
   * Ends the program and everything it started: its stdin closes, then its whole family gets
   * SIGTERM and, `graceMs` later, SIGKILL. Resolves once nothing of it is left.
   */
  stop(graceMs = 500): Promise<void> {
    return (this.stopping ??= (async () => {
      this.connection.close();
      this.child.stdin?.end();
      await this.family.killAll('SIGTERM', graceMs);
      await this.exited;
    })());
  }
}
