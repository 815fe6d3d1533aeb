// A program's client of a host's session layer (docs/architecture.md, "Sessions over a link that
// drops"): `loupe run --remote`, the relay in front of a remote window, the benches. The same
// protocol as the window's WebSocket client: the server speaks first, we say hello with our id
// and the last event we saw, missed events are replayed or we are told to read the state again,
// and requests survive a drop with their ids (the host never runs one twice). `open` is called
// again after every drop, so a link that can be re-established (ssh) is.
import { randomBytes } from 'node:crypto';
import type { EventChannel, HostEvents, Params, RemoteLinkState, RequestChannel, Result, WsClientMessage, WsServerMessage } from '../../shared/contract';
import { LoupeError } from '../errors';
import type { Wire } from './wire';

export interface HostLinkOptions {
  /** A new connection to the host; throws (with a message for people) when there is none now. */
  open(signal: AbortSignal): Promise<Wire>;
  clientId?: string;
  /** Milliseconds before attempt `n` (0-based) after a drop. */
  delay?: (attempt: number) => number;
  /** Failed attempts in a row after which the state is `lost` (attempts go on). */
  lostAfter?: number;
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
  msg: Extract<WsClientMessage, { t: 'req' }>;
}

const defaultDelay = (n: number) => Math.min(5000, 250 * 2 ** Math.min(n, 5));

export class HostLink {
  readonly clientId: string;
  private wire: Wire | null = null;
  private ready = false;
  private stream: string | undefined;
  private lastSeq: number | undefined;
  private welcomed = false;
  private nextId = 1;
  private attempt = 0;
  private closed = false;
  private readonly inFlight = new Map<number, Pending>();
  private readonly outbox: Pending[] = [];
  private readonly listeners = new Map<string, Set<(p: unknown) => void>>();
  private readonly stateListeners = new Set<(state: RemoteLinkState, message?: string) => void>();
  private readonly resetListeners = new Set<() => void>();
  private readonly abort = new AbortController();
  private timer: NodeJS.Timeout | null = null;
  private stateNow: { state: RemoteLinkState; message?: string } = { state: 'connecting' };

  constructor(private readonly opts: HostLinkOptions) {
    this.clientId = opts.clientId ?? randomBytes(12).toString('hex');
    void this.connect();
  }

  get state(): { state: RemoteLinkState; message?: string } {
    return this.stateNow;
  }

  request<C extends RequestChannel>(channel: C, params: Params<C>): Promise<Result<C>> {
    if (this.closed) return Promise.reject(new LoupeError('CONNECTION_LOST', 'The link to the Loupe host is closed.'));
    return new Promise<Result<C>>((resolve, reject) => {
      const pending: Pending = { resolve: resolve as (v: unknown) => void, reject, msg: { t: 'req', id: this.nextId++, ch: channel, p: params } };
      if (this.ready && this.wire) this.transmit(pending);
      else this.outbox.push(pending);
    });
  }

  on<E extends EventChannel>(event: E, listener: (payload: HostEvents[E]) => void): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    const l = listener as (p: unknown) => void;
    set.add(l);
    return () => void set.delete(l);
  }

  onState(listener: (state: RemoteLinkState, message?: string) => void): () => void {
    this.stateListeners.add(listener);
    return () => void this.stateListeners.delete(listener);
  }

  /** The host could not replay what was missed: read the state again. */
  onReset(listener: () => void): () => void {
    this.resetListeners.add(listener);
    return () => void this.resetListeners.delete(listener);
  }

  /** Resolves once welcomed (now, or after the next reconnect). */
  connected(timeoutMs = 60_000): Promise<void> {
    if (this.ready) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new LoupeError('REMOTE_UNAVAILABLE', `The Loupe host did not answer within ${Math.round(timeoutMs / 1000)} s${this.stateNow.message ? `: ${this.stateNow.message}` : ''}.`));
      }, timeoutMs);
      const off = this.onState((state) => {
        if (state !== 'connected') return;
        clearTimeout(timer);
        off();
        resolve();
      });
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.abort.abort();
    if (this.timer) clearTimeout(this.timer);
    this.wire?.terminate();
    const err = new LoupeError('CONNECTION_LOST', 'The link to the Loupe host was closed.');
    for (const p of [...this.inFlight.values(), ...this.outbox]) p.reject(err);
    this.inFlight.clear();
    this.outbox.length = 0;
  }

  private setState(state: RemoteLinkState, message?: string): void {
    this.stateNow = { state, ...(message ? { message } : {}) };
    for (const l of [...this.stateListeners]) l(state, message);
  }

  private transmit(p: Pending): void {
    this.inFlight.set(p.msg.id, p);
    this.wire!.send(JSON.stringify(p.msg));
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    let wire: Wire;
    try {
      wire = await this.opts.open(this.abort.signal);
    } catch (err) {
      if (this.closed) return;
      this.retry((err as Error).message);
      return;
    }
    if (this.closed) {
      wire.terminate();
      return;
    }
    this.wire = wire;
    wire.onMessage((text) => this.message(wire, text));
    wire.onClose(() => {
      if (this.wire !== wire) return;
      this.wire = null;
      this.ready = false;
      if (!this.closed) this.retry('the connection dropped');
    });
  }

  private retry(message: string): void {
    const n = this.attempt++;
    this.setState(n + 1 >= (this.opts.lostAfter ?? 6) ? 'lost' : 'reconnecting', message);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.connect();
    }, (this.opts.delay ?? defaultDelay)(n));
  }

  private message(wire: Wire, text: string): void {
    if (wire !== this.wire) return;
    let msg: WsServerMessage;
    try {
      msg = JSON.parse(text) as WsServerMessage;
    } catch {
      return;
    }
    switch (msg.t) {
      case 'ready': {
        this.ready = false;
        const hello: WsClientMessage = {
          t: 'hello',
          client: this.clientId,
          ...(this.stream !== undefined && this.lastSeq !== undefined ? { stream: this.stream, since: this.lastSeq } : {}),
          pending: [...this.inFlight.keys()],
        };
        wire.send(JSON.stringify(hello));
        return;
      }
      case 'welcome':
        return this.welcome(wire, msg);
      case 'link':
        if (msg.state !== 'connected') {
          this.ready = false;
          this.setState(msg.state === 'connecting' ? 'reconnecting' : msg.state, msg.message);
        }
        return;
      case 'evt': {
        if (!this.ready && typeof msg.s === 'number') return;
        if (typeof msg.s === 'number') {
          if (this.lastSeq !== undefined && msg.s <= this.lastSeq) return;
          this.lastSeq = msg.s;
        }
        for (const l of [...(this.listeners.get(msg.ch) ?? [])]) l(msg.p);
        return;
      }
      case 'res': {
        const p = this.inFlight.get(msg.id);
        if (!p) return;
        this.inFlight.delete(msg.id);
        if (msg.ok) p.resolve(msg.r);
        else p.reject(new LoupeError(msg.e.code, msg.e.message, msg.e.details));
        return;
      }
    }
  }

  private welcome(wire: Wire, msg: Extract<WsServerMessage, { t: 'welcome' }>): void {
    const first = !this.welcomed;
    this.welcomed = true;
    if (!msg.resumed) {
      const err = new LoupeError('CONNECTION_LOST', 'The link dropped before this answer came, and the host no longer knows this client; what the request did shows in the state.');
      for (const p of this.inFlight.values()) p.reject(err);
      this.inFlight.clear();
    }
    const reset = msg.replay === 'reset';
    this.stream = msg.stream;
    if (reset) this.lastSeq = msg.seq;
    this.ready = true;
    this.attempt = 0;
    for (const id of [...this.inFlight.keys()].sort((a, b) => a - b)) wire.send(JSON.stringify(this.inFlight.get(id)!.msg));
    for (const p of this.outbox.splice(0)) this.transmit(p);
    this.setState('connected');
    if (reset && !first) for (const l of [...this.resetListeners]) l();
  }
}
