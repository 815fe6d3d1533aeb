import type {
  EventChannel,
  HostEvents,
  Params,
  RemoteLinkState,
  RequestChannel,
  Result,
  WsClientMessage,
  WsServerMessage,
} from '../../shared/contract';
import { reconnectDelay } from './backoff';
import { HostRequestError } from './HostRequestError';
import { EventListeners } from './listeners';
import type { ConnectionStatus, HostConnection } from './types';

/** The slice of the WebSocket API we use, so tests can hand in a fake. */
export interface SocketLike {
  readonly readyState: number;
  onopen: ((ev: unknown) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  send(data: string): void;
  close(): void;
}

export interface WsClientOptions {
  url: string;
  createSocket?: (url: string) => SocketLike;
  setTimer?: (fn: () => void, ms: number) => unknown;
  random?: () => number;
  /** This page's id for the host's session layer (random by default). */
  clientId?: string;
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
  channel: RequestChannel;
  msg: Extract<WsClientMessage, { t: 'req' }>;
}

const SOCKET_OPEN = 1;
/** Failed attempts in a row after which the window says the link is lost (it keeps trying). */
export const LOST_AFTER_ATTEMPTS = 6;

function randomClientId(): string {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * The browser transport, with the host's session layer (docs/architecture.md, "Sessions over a
 * link that drops"). The server speaks first; we say hello with our id and the last event we
 * saw; the welcome says whether the events we missed follow or the state must be read again
 * (`onReset`). A request stays pending across a drop and is sent again with the same id, which
 * the host never runs twice; only when the host no longer knows us (it restarted) is it failed
 * with CONNECTION_LOST, since it may or may not have run. Behind a relay to a remote host, `link`
 * messages say when the far side is away: requests wait meanwhile.
 */
export function createWsClient(options: WsClientOptions): HostConnection {
  const createSocket = options.createSocket ?? ((url: string) => new WebSocket(url) as unknown as SocketLike);
  const setTimer = options.setTimer ?? ((fn: () => void, ms: number) => setTimeout(fn, ms));
  const clientId = options.clientId ?? randomClientId();
  const listeners = new EventListeners();
  const statusListeners = new Set<(s: ConnectionStatus) => void>();
  const resetListeners = new Set<() => void>();
  const inFlight = new Map<number, Pending>();
  const outbox: Pending[] = [];
  let nextId = 1;
  let status: ConnectionStatus = { state: 'connecting', attempt: 0 };
  let socket: SocketLike;
  /** The welcome came on this socket and the link behind it is up: requests may go. */
  let ready = false;
  let stream: string | undefined;
  let lastSeq: number | undefined;
  let welcomed = false;

  const setStatus = (next: ConnectionStatus): void => {
    status = next;
    for (const l of [...statusListeners]) l(next);
  };
  const setLink = (state: RemoteLinkState, message?: string): void => {
    setStatus({ ...status, link: { state, ...(message ? { message } : {}) } });
  };
  const transmit = (pending: Pending): void => {
    inFlight.set(pending.msg.id, pending);
    socket.send(JSON.stringify(pending.msg));
  };
  const failAll = (message: string): void => {
    for (const [id, pending] of inFlight) {
      inFlight.delete(id);
      pending.reject(new HostRequestError('CONNECTION_LOST', message, pending.channel));
    }
  };

  const welcome = (msg: Extract<WsServerMessage, { t: 'welcome' }>): void => {
    const first = !welcomed;
    welcomed = true;
    if (!msg.resumed) failAll('The connection to the Loupe host dropped before this answer came, and the host no longer knows this window; what the request did shows in the state.');
    const reset = msg.replay === 'reset';
    stream = msg.stream;
    if (reset) lastSeq = msg.seq;
    ready = true;
    setStatus({ state: 'open', attempt: 0, ...(status.link ? { link: status.link } : {}) });
    // In id order, before anything new: the host answers kept ones again and runs the rest once.
    for (const id of [...inFlight.keys()].sort((a, b) => a - b)) socket.send(JSON.stringify(inFlight.get(id)!.msg));
    for (const pending of outbox.splice(0)) transmit(pending);
    if (reset && !first) for (const l of [...resetListeners]) l();
  };

  const handleMessage = (raw: unknown): void => {
    if (typeof raw !== 'string') return;
    let msg: WsServerMessage;
    try {
      msg = JSON.parse(raw) as WsServerMessage;
    } catch {
      console.error('[loupe] unparseable message from host');
      return;
    }
    switch (msg.t) {
      case 'ready': {
        ready = false;
        const hello: WsClientMessage = { t: 'hello', client: clientId, ...(stream !== undefined && lastSeq !== undefined ? { stream, since: lastSeq } : {}), pending: [...inFlight.keys()] };
        socket.send(JSON.stringify(hello));
        return;
      }
      case 'welcome':
        return welcome(msg);
      case 'link':
        // The far side went away (its answers and events will come after the next welcome).
        if (msg.state !== 'connected') ready = false;
        setLink(msg.state, msg.message);
        return;
      case 'evt': {
        // Before the welcome, every numbered event is among those the welcome replays; an
        // unnumbered one (a relay's `remote.status`) is not replayed and counts at once.
        if (!ready && typeof msg.s === 'number') return;
        if (typeof msg.s === 'number') {
          if (lastSeq !== undefined && msg.s <= lastSeq) return;
          lastSeq = msg.s;
        }
        listeners.emit(msg.ch, msg.p);
        return;
      }
      case 'res': {
        const pending = inFlight.get(msg.id);
        if (!pending) return;
        inFlight.delete(msg.id);
        if (msg.ok) pending.resolve(msg.r);
        else pending.reject(new HostRequestError(msg.e.code, msg.e.message, pending.channel, msg.e.details));
        return;
      }
    }
  };

  const connect = (): void => {
    socket = createSocket(options.url);
    socket.onmessage = (ev) => handleMessage(ev.data);
    // onerror is always followed by onclose; reconnecting from one place avoids doubling.
    socket.onerror = () => {};
    socket.onclose = () => {
      ready = false;
      const attempt = status.state === 'open' ? 0 : status.attempt + 1;
      setStatus({ state: attempt >= LOST_AFTER_ATTEMPTS ? 'lost' : 'reconnecting', attempt, ...(status.link ? { link: status.link } : {}) });
      setTimer(connect, reconnectDelay(attempt, options.random));
    };
  };
  connect();

  return {
    transport: 'websocket',
    request<C extends RequestChannel>(channel: C, params: Params<C>): Promise<Result<C>> {
      return new Promise<Result<C>>((resolve, reject) => {
        const pending: Pending = { resolve: resolve as (v: unknown) => void, reject, channel, msg: { t: 'req', id: nextId++, ch: channel, p: params } };
        if (ready && socket.readyState === SOCKET_OPEN) transmit(pending);
        else outbox.push(pending);
      });
    },
    on<E extends EventChannel>(event: E, listener: (payload: HostEvents[E]) => void): () => void {
      return listeners.add(event, listener);
    },
    status: () => status,
    onStatus(listener) {
      statusListeners.add(listener);
      return () => {
        statusListeners.delete(listener);
      };
    },
    onReset(listener) {
      resetListeners.add(listener);
      return () => {
        resetListeners.delete(listener);
      };
    },
  };
}
