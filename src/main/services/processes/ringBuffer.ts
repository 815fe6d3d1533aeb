// The newest bytes of a process's output in fixed memory, addressed by absolute offset in the
// whole stream, so a reader's cursor stays valid while older bytes fall off the front (the log
// file on disk keeps them; see outputLog.ts).
export class RingBuffer {
  private readonly buf: Buffer;
  /** Bytes ever written: the absolute offset just past the newest byte. */
  private total = 0;

  constructor(readonly capacity: number) {
    this.buf = Buffer.allocUnsafe(capacity);
  }

  /** Absolute offset of the oldest byte still held. */
  get start(): number {
    return Math.max(0, this.total - this.capacity);
  }

  get end(): number {
    return this.total;
  }

  write(chunk: Buffer): void {
    if (chunk.length >= this.capacity) {
      chunk.copy(this.buf, 0, chunk.length - this.capacity);
      // Realign so the oldest byte sits at the index read() expects.
      this.total += chunk.length;
      this.rotateTo(this.total % this.capacity);
      return;
    }
    const at = this.total % this.capacity;
    const first = Math.min(chunk.length, this.capacity - at);
    chunk.copy(this.buf, at, 0, first);
    if (first < chunk.length) chunk.copy(this.buf, 0, first);
    this.total += chunk.length;
  }

  /** Bytes [from, to) of the stream; the part before `start` is not here (the caller reads the log). */
  read(from: number, to = this.total): Buffer {
    from = Math.max(from, this.start);
    to = Math.min(to, this.total);
    if (to <= from) return Buffer.alloc(0);
    const a = from % this.capacity;
    const b = a + (to - from);
    if (b <= this.capacity) return Buffer.from(this.buf.subarray(a, b));
    return Buffer.concat([this.buf.subarray(a), this.buf.subarray(0, b - this.capacity)]);
  }

  /** After a write larger than the buffer, move its content so index (offset % capacity) holds offset. */
  private rotateTo(at: number): void {
    if (at === 0) return;
    const copy = Buffer.from(this.buf);
    copy.copy(this.buf, at, 0, this.capacity - at);
    copy.copy(this.buf, 0, this.capacity - at);
  }
}
