/** VS Code acknowledges in steps of this many characters; the host resumes below 5,000 unacked. */
export const ACK_BATCH_CHARS = 5000;
/** What stays below a batch is acknowledged after this much quiet, so nothing lingers unacked. */
export const ACK_IDLE_MS = 250;

/**
 * Collects characters xterm has finished writing and reports them in batches, so a flood of
 * output costs one ack per ~5,000 characters rather than one per chunk.
 */
export class AckBatcher {
  private pending = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly send: (chars: number) => void,
    private readonly threshold = ACK_BATCH_CHARS,
    private readonly idleMs = ACK_IDLE_MS,
  ) {}

  written(chars: number): void {
    if (chars <= 0) return;
    this.pending += chars;
    if (this.pending >= this.threshold) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.idleMs);
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending === 0) return;
    const chars = this.pending;
    this.pending = 0;
    this.send(chars);
  }
}
