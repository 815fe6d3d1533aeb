import type { HostClient, RemoteLinkState } from '../../shared/contract';

/** `lost`: many attempts in a row failed (it keeps trying, more slowly). */
export type ConnectionState = 'connecting' | 'open' | 'reconnecting' | 'lost';

export interface ConnectionStatus {
  state: ConnectionState;
  /** Consecutive failed attempts since the connection was last open. */
  attempt: number;
  /** Behind a relay to a remote host: the state of the link from the relay to it. */
  link?: { state: RemoteLinkState; message?: string };
}

/**
 * A HostClient plus what the UI needs to know about the wire under it. Electron IPC is
 * always 'open'; the WebSocket can drop and come back.
 */
export interface HostConnection extends HostClient {
  readonly transport: 'electron' | 'websocket';
  status(): ConnectionStatus;
  onStatus(listener: (status: ConnectionStatus) => void): () => void;
  /** After a reconnect whose missed events could not be replayed: what is shown must be read again. */
  onReset(listener: () => void): () => void;
}
