// One client of `loupe serve` or of a remote host. What one client does — a malformed frame, a
// flood of requests, a socket it never reads — costs that client its connection, never the
// server or the other clients their memory.
import type { Wire } from './wire';

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

/** Handles one message of the client; answers go out through `Connection.send`. */
export type MessageHandler = (raw: string, connection: Connection) => Promise<void>;

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
    readonly wire: Wire,
    private readonly handle: MessageHandler,
    private readonly limits: ConnectionLimits,
    onClose: () => void,
  ) {
    wire.onClose(() => {
      this.dispose();
      onClose();
    });
    wire.onMessage((text) => {
      this.queue.push(text);
      this.pump();
    });
  }

  stats(): ConnectionStats {
    return { bufferedBytes: this.buffered(), peakBufferedBytes: this.peak, running: this.running, queued: this.queue.length };
  }

  get isClosed(): boolean {
    return this.closed || !this.wire.isOpen();
  }

  terminate(): void {
    this.dispose();
    this.wire.terminate();
  }

  private buffered(): number {
    const n = this.wire.bufferedBytes();
    if (n > this.peak) this.peak = n;
    return n;
  }

  /** Sends a message (an answer, an event); a client too far behind to take it is closed instead. */
  send(data: string): void {
    if (this.isClosed) return;
    if (this.buffered() > this.limits.hardLimitBytes) {
      this.terminate();
      return;
    }
    this.wire.send(data);
    this.sentBytes += Buffer.byteLength(data);
    this.buffered();
  }

  /** Starts what the limits allow, and reads from the socket only while there is room. */
  private pump(): void {
    if (this.closed) return;
    const over = this.buffered() > this.limits.budgetBytes;
    while (!over && this.running < this.limits.maxConcurrent && this.queue.length) this.run(this.queue.shift()!);
    if (over || this.queue.length) this.wire.pause();
    else this.wire.resume();
    this.watchBacklog(over);
  }

  private run(raw: string): void {
    this.running++;
    this.handle(raw, this)
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
    const taken = this.sentBytes - this.wire.bufferedBytes();
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
