// One WebSocket client of `loupe serve`. What one client does — a malformed frame, a flood of
// requests, a socket it never reads — costs that client its connection, never the server or
// the other clients their memory.
import type { WebSocket } from 'ws';
import type { WsServerMessage } from '../../../shared/contract';

export interface ConnectionLimits {
  /** Requests of one client handled at once; the rest wait, in order, unread. */
  maxConcurrent: number;
  /** Bytes queued for the client past which no request of its starts and its socket is not read. */
  budgetBytes: number;
  /** Bytes queued past which the client is closed: events cannot be held back like requests. */
  hardLimitBytes: number;
  /** A client whose backlog stays over budget this long without shrinking is closed. */
  stallMs: number;
}

// Two at a time: a slow request (git status, a model probe) leaves a slot for keystrokes, and
// a burst of big reads holds two files in memory, not sixty (measured: +50 MB, four: +105 MB).
export const DEFAULT_LIMITS: ConnectionLimits = {
  maxConcurrent: 2,
  budgetBytes: 8 * 1024 * 1024,
  hardLimitBytes: 64 * 1024 * 1024,
  stallMs: 30_000,
};

const POLL_MS = 25;

export interface ConnectionStats {
  /** Bytes handed to the socket that the client has not taken yet. */
  bufferedBytes: number;
  /** The most `bufferedBytes` has been. */
  peakBufferedBytes: number;
  running: number;
  queued: number;
}

/** Answers one request: the reply, or null when the message deserves none. */
export type RequestHandler = (raw: string) => Promise<WsServerMessage | null>;

export class Connection {
  private readonly queue: string[] = [];
  private running = 0;
  private peak = 0;
  private overBudgetSince: number | null = null;
  /** Bytes handed to the socket so far, and how many of them the client had taken at the last look. */
  private sentBytes = 0;
  private lastTaken = 0;
  private poll: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    readonly ws: WebSocket,
    private readonly handle: RequestHandler,
    private readonly limits: ConnectionLimits,
    onClose: () => void,
  ) {
    // ws reports a protocol violation (bad frame, bad UTF-8, over-size message) as an error
    // and closes with the matching status; unheard, the error would end the process.
    ws.on('error', () => this.terminate());
    ws.on('close', () => {
      this.dispose();
      onClose();
    });
    ws.on('message', (data) => {
      this.queue.push(data.toString());
      this.pump();
    });
  }

  stats(): ConnectionStats {
    return { bufferedBytes: this.buffered(), peakBufferedBytes: this.peak, running: this.running, queued: this.queue.length };
  }

  /** Sends an event; a client too far behind to take it is closed instead. */
  sendEvent(data: string): void {
    this.send(data);
  }

  terminate(): void {
    this.dispose();
    this.ws.terminate();
  }

  private buffered(): number {
    const n = this.ws.bufferedAmount;
    if (n > this.peak) this.peak = n;
    return n;
  }

  private send(data: string): void {
    if (this.closed || this.ws.readyState !== this.ws.OPEN) return;
    if (this.buffered() > this.limits.hardLimitBytes) {
      this.terminate();
      return;
    }
    this.ws.send(data);
    this.sentBytes += Buffer.byteLength(data);
    this.buffered();
  }

  /** Starts what the limits allow, and reads from the socket only while there is room. */
  private pump(): void {
    if (this.closed) return;
    const over = this.buffered() > this.limits.budgetBytes;
    while (!over && this.running < this.limits.maxConcurrent && this.queue.length) this.run(this.queue.shift()!);
    if (over || this.queue.length) this.ws.pause();
    else this.ws.resume();
    this.watchBacklog(over);
  }

  private run(raw: string): void {
    this.running++;
    this.handle(raw)
      .then((reply) => {
        if (reply) this.send(JSON.stringify(reply));
      })
      .catch(() => undefined)
      .finally(() => {
        this.running--;
        this.pump();
      });
  }

  /** While over budget, waits for the client to drain; one that stops draining is closed. */
  private watchBacklog(over: boolean): void {
    if (!over) {
      this.overBudgetSince = null;
      if (this.poll) clearTimeout(this.poll);
      this.poll = null;
      return;
    }
    // A slow reader that is still taking bytes is not stalled. Progress is what the client took,
    // not a shrinking backlog: a reply queued meanwhile can grow the backlog while it drains.
    const taken = this.sentBytes - this.ws.bufferedAmount;
    if (this.overBudgetSince === null || taken > this.lastTaken) this.overBudgetSince = Date.now();
    this.lastTaken = taken;
    if (Date.now() - this.overBudgetSince > this.limits.stallMs) {
      this.terminate();
      return;
    }
    this.poll ??= setTimeout(() => {
      this.poll = null;
      this.pump();
    }, POLL_MS);
  }

  private dispose(): void {
    this.closed = true;
    this.queue.length = 0;
    if (this.poll) clearTimeout(this.poll);
    this.poll = null;
  }
}
