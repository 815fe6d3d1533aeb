/** VS Code acknowledges in steps of this many characters; the host resumes below 5,000 unacked. */
export const ACK_BATCH_CHARS = 5000;

/**
 * Collects characters xterm has finished writing and reports them in batches, so a flood of
 * output costs one ack per ~5,000 characters rather than one per chunk. What stays below the
 * threshold is never enough to keep the host paused (its resume mark is the same size).
 */
export class AckBatcher {
  private pending = 0;

  constructor(
    private readonly send: (chars: number) => void,
    private readonly threshold = ACK_BATCH_CHARS,
  ) {}

  written(chars: number): void {
    if (chars <= 0) return;
    this.pending += chars;
    if (this.pending >= this.threshold) this.flush();
  }

  flush(): void {
    if (this.pending === 0) return;
    const chars = this.pending;
    this.pending = 0;
    this.send(chars);
  }
}
