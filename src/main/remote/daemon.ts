// The host of a remote machine (docs/architecture.md, "Remote workspaces"): one process per
// user and version, detached from any ssh session, listening on a 0600 Unix socket. Each
// connection names the folder it is for (`attach`); the folder's Host and its session layer
// (SessionHub) outlive the connections, so a turn, a command, a terminal or a question goes on
// while the window is away and is replayed to it when it comes back. A connection may instead
// ask how the host is (`status`) or ask it to stop when idle (`shutdown`): how a newer version
// prunes this one without ever stopping a running turn.
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, renameSync, statSync, unlinkSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import type { WorkspaceInfo } from '../../shared/contract';
import { LoupeError, toWireError } from '../errors';
import { Host } from '../host/host';
import { nullLogger, type Logger } from '../services/log/logger';
import { Connection, DEFAULT_LIMITS } from '../transport/connection';
import { lineWire } from '../transport/lineWire';
import { SessionHub } from '../transport/sessionHub';
import { connects } from './connects';
import { ModelRelay, ModelRoute, type ModelSpec } from './modelRoute';

/** Lines a connection may send before its session begins. */
export type DaemonRequest =
  | { t: 'attach'; folder: string; model?: ModelSpec }
  | { t: 'status' }
  | { t: 'shutdown'; if_idle: boolean };

export interface DaemonStatus {
  t: 'status';
  version: string;
  build: string;
  pid: number;
  /** No client connected, and nothing runs: no request, background process or terminal. */
  idle: boolean;
  clients: number;
  folders: { root: string; requests: number; processes: number; terminals: number }[];
}

export type DaemonReply =
  | { t: 'attached'; root: string; info: WorkspaceInfo; model_route: string }
  | DaemonStatus
  | { t: 'shutdown'; stopping: boolean }
  | { t: 'error'; code: string; message: string };

export interface DaemonOptions {
  socket: string;
  version: string;
  build: string;
  configDir: string;
  logger?: Logger;
  /** Exits after this long with no client and nothing running. */
  idleMs?: number;
  /** Called after each attach (the newest version prunes older ones then). */
  onAttach?: () => void;
  /** Tests: Hosts are made by this instead (a stand-in model, a registry). */
  makeHost?: (model: ModelRoute) => Host;
}

interface Folder {
  root: string;
  host: Host;
  hub: SessionHub;
  model: ModelRoute;
}

const CHECK_EVERY_MS = 60_000;

export class RemoteDaemon {
  private server: net.Server | null = null;
  private readonly folders = new Map<string, Folder>();
  private readonly opening = new Map<string, Promise<Folder>>();
  private readonly connections = new Set<Connection>();
  /** Connections attached to a folder: windows and programs, not status or shutdown questions. */
  private readonly clients = new Set<Connection>();
  private readonly relay = new ModelRelay();
  private readonly logger: Logger;
  private lastClientAt = Date.now();
  private timer: NodeJS.Timeout | null = null;
  private ino = 0;
  private readonly exited: Promise<void>;
  private exit!: () => void;

  constructor(private readonly opts: DaemonOptions) {
    this.logger = opts.logger ?? nullLogger;
    this.exited = new Promise((r) => (this.exit = r));
  }

  /** Resolves when the host has stopped (idle, asked to, or replaced). */
  get done(): Promise<void> {
    return this.exited;
  }

  /**
   * Listens on the socket, unless a live host already answers there (then throws). The socket is
   * bound under a private name with a 0177 umask, then renamed over the stale one: never a moment
   * when another user could connect, and a crashed host's socket is replaced in one step.
   */
  async listen(): Promise<void> {
    const dir = path.dirname(this.opts.socket);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (await answers(this.opts.socket)) throw new LoupeError('REMOTE_UNAVAILABLE', `A Loupe host already listens on ${this.opts.socket}.`);
    const temp = path.join(dir, `.host-${process.pid}-${randomBytes(4).toString('hex')}.sock`);
    const server = net.createServer((socket) => this.accept(socket));
    const umask = process.umask(0o177);
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(temp, () => resolve());
      });
    } finally {
      process.umask(umask);
    }
    chmodSync(temp, 0o600);
    renameSync(temp, this.opts.socket);
    this.ino = statSync(this.opts.socket).ino;
    this.server = server;
    await this.relay.start();
    this.timer = setInterval(() => void this.check(), CHECK_EVERY_MS);
    this.timer.unref?.();
    this.logger.info('remote.host_started', { version: this.opts.version, socket: this.opts.socket });
  }

  status(): DaemonStatus {
    const folders = [...this.folders.values()].map((f) => ({ root: f.root, ...f.host.activity() }));
    const busy = folders.some((f) => f.requests || f.processes || f.terminals);
    return { t: 'status', version: this.opts.version, build: this.opts.build, pid: process.pid, idle: this.clients.size === 0 && !busy, clients: this.clients.size, folders };
  }

  private accept(socket: net.Socket): void {
    let folder: Promise<Folder> | null = null;
    const connection: Connection = new Connection(
      lineWire(socket),
      async (raw, c) => {
        if (folder) {
          const f = await folder;
          // The window's machine's model settings changed (saved in its Settings): taken in memory.
          if (raw.startsWith('{"t":"model"')) return void (await f.model.update((JSON.parse(raw) as { model: ModelSpec }).model).catch(() => undefined));
          return f.hub.message(raw, c);
        }
        let msg: DaemonRequest;
        try {
          msg = JSON.parse(raw) as DaemonRequest;
        } catch {
          c.terminate();
          return;
        }
        if (msg.t === 'status') return c.send(JSON.stringify(this.status()));
        if (msg.t === 'shutdown') {
          const stopping = !msg.if_idle || this.status().idle;
          c.send(JSON.stringify({ t: 'shutdown', stopping } satisfies DaemonReply));
          if (stopping) setImmediate(() => void this.stop('asked'));
          return;
        }
        if (msg.t !== 'attach' || typeof msg.folder !== 'string') {
          c.send(JSON.stringify({ t: 'error', code: 'INVALID_ARGUMENT', message: 'The first line must be attach, status or shutdown.' } satisfies DaemonReply));
          c.terminate();
          return;
        }
        folder = this.attach(msg.folder, msg.model);
        let f: Folder;
        try {
          f = await folder;
        } catch (err) {
          const e = toWireError(err);
          c.send(JSON.stringify({ t: 'error', code: e.code, message: e.message } satisfies DaemonReply));
          c.terminate();
          return;
        }
        c.send(JSON.stringify({ t: 'attached', root: f.root, info: f.host.current!, model_route: f.model.route } satisfies DaemonReply));
        this.clients.add(c);
        f.hub.add(c);
        this.opts.onAttach?.();
      },
      DEFAULT_LIMITS,
      () => {
        this.connections.delete(connection);
        if (this.clients.delete(connection)) this.lastClientAt = Date.now();
        void folder?.then((f) => f.hub.remove(connection), () => undefined);
      },
    );
    this.connections.add(connection);
  }

  /** The folder's Host, opened on first use; the window machine's model settings taken each time. */
  private async attach(folder: string, model: ModelSpec | undefined): Promise<Folder> {
    if (!path.isAbsolute(folder)) throw new LoupeError('INVALID_PATH', `The remote folder must be an absolute path (got ${JSON.stringify(folder)}).`);
    let root: string;
    try {
      root = await realpath(folder);
    } catch {
      throw new LoupeError('FILE_NOT_FOUND', `There is no folder ${folder} on this machine.`);
    }
    let pending = this.opening.get(root);
    if (!pending) {
      pending = this.open(root);
      this.opening.set(root, pending);
      pending.catch(() => this.opening.delete(root));
    }
    const f = await pending;
    if (model) await f.model.update(model);
    return f;
  }

  private async open(root: string): Promise<Folder> {
    const model = new ModelRoute(this.relay);
    const host =
      this.opts.makeHost?.(model) ??
      new Host({ transport: 'websocket', configDir: this.opts.configDir, logger: this.logger, model: async () => model.config() });
    await host.open(root);
    const f: Folder = { root: host.current?.root ?? root, host, hub: new SessionHub(host), model };
    this.folders.set(root, f);
    return f;
  }

  /** Every minute: stop when idle long enough, or when another host took the socket. */
  private async check(): Promise<void> {
    let mine: boolean;
    try {
      mine = statSync(this.opts.socket).ino === this.ino;
    } catch {
      mine = false;
    }
    const idle = this.status().idle;
    if (!mine && idle) return this.stop('replaced');
    if (idle && Date.now() - this.lastClientAt > (this.opts.idleMs ?? 30 * 60_000)) return this.stop('idle');
  }

  async stop(why: string): Promise<void> {
    if (!this.server) return;
    this.logger.info('remote.host_stopping', { why });
    const server = this.server;
    this.server = null;
    if (this.timer) clearInterval(this.timer);
    server.close();
    try {
      if (statSync(this.opts.socket).ino === this.ino) unlinkSync(this.opts.socket);
    } catch {
      // Gone already, or another host's now.
    }
    for (const c of this.connections) c.terminate();
    for (const f of this.folders.values()) {
      f.hub.close();
      await f.host.dispose().catch(() => undefined);
    }
    await this.relay.close();
    this.exit();
  }
}

/** Does a host answer on this socket? */
export const answers = (socket: string, timeoutMs = 3000): Promise<boolean> => connects({ path: socket }, timeoutMs);
