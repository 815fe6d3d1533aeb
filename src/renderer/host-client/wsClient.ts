import type {
  EventChannel,
  HostEvents,
  Params,
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
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
  channel: RequestChannel;
}

const SOCKET_OPEN = 1;

/**
 * The browser transport. Requests made while the socket is down wait in an outbox and go
 * out on reconnect; requests already on the wire when it drops are rejected, because we
 * cannot know whether the host ran them.
 */
export function createWsClient(options: WsClientOptions): HostConnection {
  const createSocket = options.createSocket ?? ((url: string) => new WebSocket(url) as unknown as SocketLike);
  const setTimer = options.setTimer ?? ((fn: () => void, ms: number) => setTimeout(fn, ms));
  const listeners = new EventListeners();
  const statusListeners = new Set<(s: ConnectionStatus) => void>();
  const inFlight = new Map<number, Pending>();
  const outbox: { msg: WsClientMessage; pending: Pending }[] = [];
  let nextId = 1;
  let status: ConnectionStatus = { state: 'connecting', attempt: 0 };
  let socket: SocketLike;

  const setStatus = (next: ConnectionStatus): void => {
    status = next;
    for (const l of [...statusListeners]) l(next);
  };

  const transmit = (msg: WsClientMessage, pending: Pending): void => {
    inFlight.set(msg.id, pending);
    socket.send(JSON.stringify(msg));
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
    if (msg.t === 'evt') {
      listeners.emit(msg.ch, msg.p);
      return;
    }
    const pending = inFlight.get(msg.id);
    if (!pending) return;
    inFlight.delete(msg.id);
    if (msg.ok) pending.resolve(msg.r);
    else pending.reject(new HostRequestError(msg.e.code, msg.e.message, pending.channel, msg.e.details));
  };

  const connect = (): void => {
    socket = createSocket(options.url);
    socket.onopen = () => {
      setStatus({ state: 'open', attempt: 0 });
      for (const { msg, pending } of outbox.splice(0)) transmit(msg, pending);
    };
    socket.onmessage = (ev) => handleMessage(ev.data);
    // onerror is always followed by onclose; reconnecting from one place avoids doubling.
    socket.onerror = () => {};
    socket.onclose = () => {
      for (const [id, pending] of inFlight) {
        inFlight.delete(id);
        pending.reject(new HostRequestError('INTERNAL', 'The connection to the Loupe host was lost', pending.channel));
      }
      const attempt = status.state === 'open' ? 0 : status.attempt + 1;
      setStatus({ state: 'reconnecting', attempt });
      setTimer(connect, reconnectDelay(attempt, options.random));
    };
  };

  connect();

  return {
    transport: 'websocket',
    request<C extends RequestChannel>(channel: C, params: Params<C>): Promise<Result<C>> {
      return new Promise<Result<C>>((resolve, reject) => {
        const msg: WsClientMessage = { t: 'req', id: nextId++, ch: channel, p: params };
        const pending: Pending = { resolve: resolve as (v: unknown) => void, reject, channel };
        if (socket.readyState === SOCKET_OPEN) transmit(msg, pending);
        else outbox.push({ msg, pending });
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
  };
}
