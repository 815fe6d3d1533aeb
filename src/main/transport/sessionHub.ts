// The session layer between a Host and the clients of one transport (docs/architecture.md,
// "Sessions over a link that drops"). Every event gets a sequence number and is kept for a while
// (EventRing); a client that comes back says which it saw last and gets the rest, or is told to
// read the state again. Requests carry the client's ids: one resent after a reconnect is never
// run twice — its kept answer is sent again, or it is still running and its answer follows.
// The Host keeps running meanwhile: nothing here stops a turn because a client went away.
import { randomBytes } from 'node:crypto';
import { REQUEST_CHANNELS, type EventChannel, type RequestChannel, type WsClientMessage, type WsServerMessage } from '../../shared/contract';
import { toWireError } from '../errors';
import type { Connection } from './connection';
import { DEFAULT_EVENT_RING, EventRing, type EventRingLimits } from './eventRing';

/** What a transport needs of a Host: the contract's two directions. */
export interface HostLike {
  handle(channel: RequestChannel, params: never): Promise<unknown>;
  onEvent(listener: (channel: EventChannel, payload: unknown) => void): () => void;
}

export interface SessionLimits extends EventRingLimits {
  /** Answers kept per client until it says it has them (count, then bytes). */
  maxKeptAnswers: number;
  maxKeptBytes: number;
  /** Clients remembered; the one gone longest is forgotten first. */
  maxClients: number;
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = { ...DEFAULT_EVENT_RING, maxKeptAnswers: 256, maxKeptBytes: 16 * 1024 * 1024, maxClients: 64 };

const channels = new Set<string>(REQUEST_CHANNELS);
const CLIENT_ID = /^[A-Za-z0-9_-]{8,64}$/;

/** One client, across its connections. */
class ClientSession {
  connection: Connection | null = null;
  /** The highest request id received: a lower one not running and not kept already ran. */
  maxSeen = 0;
  readonly running = new Set<number>();
  readonly kept = new Map<number, string>();
  private keptBytes = 0;
  lastActive = Date.now();

  constructor(readonly id: string) {}

  keep(id: number, text: string, limits: SessionLimits): void {
    this.kept.set(id, text);
    this.keptBytes += text.length;
    for (const [old, t] of this.kept) {
      if (this.kept.size <= limits.maxKeptAnswers && this.keptBytes <= limits.maxKeptBytes) break;
      if (old === id) break;
      this.kept.delete(old);
      this.keptBytes -= t.length;
    }
  }

  /** Forgets the answers the client no longer waits for. */
  prune(pending: Set<number>): void {
    for (const [id, t] of this.kept) {
      if (pending.has(id)) continue;
      this.kept.delete(id);
      this.keptBytes -= t.length;
    }
  }
}

export interface SessionHubStats {
  stream: string;
  seq: number;
  clients: number;
  connections: number;
}

export class SessionHub {
  /** Names this hub's numbering: a client that saw another stream (a restarted server) reads the state again. */
  readonly stream = randomBytes(9).toString('base64url');
  private seq = 0;
  private readonly ring: EventRing;
  private readonly connections = new Set<Connection>();
  private readonly clients = new Map<string, ClientSession>();
  private readonly sessionOf = new WeakMap<Connection, ClientSession>();
  private readonly limits: SessionLimits;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly host: HostLike,
    limits: Partial<SessionLimits> = {},
  ) {
    this.limits = { ...DEFAULT_SESSION_LIMITS, ...limits };
    this.ring = new EventRing(this.limits);
    this.unsubscribe = host.onEvent((ch, p) => this.publish(ch, p));
  }

  stats(): SessionHubStats {
    return { stream: this.stream, seq: this.seq, clients: this.clients.size, connections: this.connections.size };
  }

  /** Numbers an event, keeps it and sends it to every connection. */
  publish(channel: EventChannel, payload: unknown): void {
    const s = ++this.seq;
    const text = JSON.stringify({ t: 'evt', s, ch: channel, p: payload } satisfies WsServerMessage);
    this.ring.push(s, text);
    for (const c of this.connections) c.send(text);
  }

  /** A new connection: it hears events from now on and is told to say hello. */
  add(connection: Connection): void {
    this.connections.add(connection);
    connection.send(JSON.stringify({ t: 'ready' } satisfies WsServerMessage));
  }

  remove(connection: Connection): void {
    this.connections.delete(connection);
    const session = this.sessionOf.get(connection);
    if (session?.connection === connection) {
      session.connection = null;
      session.lastActive = Date.now();
    }
  }

  /** Every message a connection receives: a hello, or a request. */
  async message(raw: string, connection: Connection): Promise<void> {
    let msg: { t?: unknown; id?: unknown; ch?: unknown; p?: unknown };
    try {
      msg = JSON.parse(raw);
    } catch {
      return;
    }
    if (msg?.t === 'hello') return this.hello(msg as Extract<WsClientMessage, { t: 'hello' }>, connection);
    if (msg?.t !== 'req' || typeof msg.id !== 'number' || !Number.isSafeInteger(msg.id)) return;
    const id = msg.id;
    const session = this.sessionOf.get(connection);
    if (!session) {
      connection.send(JSON.stringify(await this.answer(id, msg.ch, msg.p)));
      return;
    }
    if (session.running.has(id)) return;
    const kept = session.kept.get(id);
    if (kept !== undefined) return connection.send(kept);
    if (id <= session.maxSeen) {
      const lost: WsServerMessage = { t: 'res', id, ok: false, e: { code: 'CONNECTION_LOST', message: 'The answer to this request was lost with the connection; what it did shows in the state.' } };
      connection.send(JSON.stringify(lost));
      return;
    }
    session.maxSeen = id;
    session.running.add(id);
    const text = JSON.stringify(await this.answer(id, msg.ch, msg.p));
    session.running.delete(id);
    session.keep(id, text, this.limits);
    // The client may be on another connection by now, or on none until it comes back.
    session.connection?.send(text);
  }

  /**
   * Binds the connection to its client and sends, at once and in this order, the welcome and
   * the events it missed: nothing can be published between them, and events it heard before
   * the welcome are all among those replayed.
   */
  private hello(msg: Extract<WsClientMessage, { t: 'hello' }>, connection: Connection): void {
    if (typeof msg.client !== 'string' || !CLIENT_ID.test(msg.client)) {
      connection.terminate();
      return;
    }
    let session = this.clients.get(msg.client);
    const resumed = session !== undefined && msg.stream === this.stream;
    if (!session) {
      session = new ClientSession(msg.client);
      this.clients.set(msg.client, session);
      this.forgetOldClients();
    }
    const previous = session.connection;
    session.connection = connection;
    session.lastActive = Date.now();
    this.sessionOf.set(connection, session);
    if (previous && previous !== connection) previous.terminate();
    session.prune(new Set(Array.isArray(msg.pending) ? msg.pending.filter((n) => typeof n === 'number') : []));
    const missed = msg.stream === this.stream && typeof msg.since === 'number' ? this.ring.since(msg.since) : null;
    const welcome = { t: 'welcome', stream: this.stream, seq: this.seq, replay: missed ? 'events' : 'reset', resumed } satisfies WsServerMessage;
    connection.send(JSON.stringify(welcome));
    for (const text of missed ?? []) connection.send(text);
  }

  private forgetOldClients(): void {
    if (this.clients.size <= this.limits.maxClients) return;
    const idle = [...this.clients.values()].filter((c) => !c.connection && c.running.size === 0).sort((a, b) => a.lastActive - b.lastActive);
    for (const c of idle) {
      if (this.clients.size <= this.limits.maxClients) break;
      this.clients.delete(c.id);
    }
  }

  private async answer(id: number, ch: unknown, p: unknown): Promise<WsServerMessage> {
    if (typeof ch !== 'string' || !channels.has(ch)) {
      return { t: 'res', id, ok: false, e: { code: 'INVALID_ARGUMENT', message: `Unknown request channel: ${String(ch)}` } };
    }
    try {
      const r = await this.host.handle(ch as RequestChannel, p as never);
      return { t: 'res', id, ok: true, r: r ?? null };
    } catch (err) {
      return { t: 'res', id, ok: false, e: toWireError(err) };
    }
  }

  close(): void {
    this.unsubscribe();
    for (const c of this.connections) c.terminate();
    this.connections.clear();
  }
}
