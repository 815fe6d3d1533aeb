// One message-oriented connection to a client, whatever carries it: a WebSocket (`loupe serve`)
// or a Unix socket framed one JSON text per line (a remote host's link). The flow control of
// `Connection` and the session layer of `SessionHub` are written against this and nothing else.

export interface Wire {
  /** Queues one message; never throws (a closed wire drops it). */
  send(text: string): void;
  /** Bytes handed to the wire that the peer has not taken yet. */
  bufferedBytes(): number;
  /** Stops reading from the peer (its requests wait in the kernel's buffers) until `resume`. */
  pause(): void;
  resume(): void;
  isOpen(): boolean;
  /** Closes at once, dropping what is queued. */
  terminate(): void;
  onMessage(listener: (text: string) => void): void;
  /** Called once, however the wire ends (the peer left, an error, `terminate`). */
  onClose(listener: () => void): void;
}
