import type { HostClient } from '../../shared/contract';

export type ConnectionState = 'connecting' | 'open' | 'reconnecting';

export interface ConnectionStatus {
  state: ConnectionState;
  /** Consecutive failed attempts since the connection was last open. */
  attempt: number;
}

/**
 * A HostClient plus what the UI needs to know about the wire under it. Electron IPC is
 * always 'open'; the WebSocket can drop and come back.
 */
export interface HostConnection extends HostClient {
  readonly transport: 'electron' | 'websocket';
  status(): ConnectionStatus;
  onStatus(listener: (status: ConnectionStatus) => void): () => void;
}
