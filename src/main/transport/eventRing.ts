// The host's recent events, numbered, each kept as the text sent: what a client that lost its
// connection missed is sent again from here. Bounded by count and by bytes; a client that
// missed more than it holds reads the state again instead.

export interface EventRingLimits {
  maxEvents: number;
  maxBytes: number;
}

export const DEFAULT_EVENT_RING: EventRingLimits = { maxEvents: 20_000, maxBytes: 32 * 1024 * 1024 };

export class EventRing {
  private readonly texts: string[] = [];
  /** Sequence number of texts[0]. */
  private first = 1;
  private bytes = 0;

  constructor(private readonly limits: EventRingLimits = DEFAULT_EVENT_RING) {}

  /** The number of the last event kept or dropped (0 before any). */
  get last(): number {
    return this.first + this.texts.length - 1;
  }

  push(seq: number, text: string): void {
    if (seq !== this.last + 1) throw new Error(`event ${seq} out of order after ${this.last}`);
    this.texts.push(text);
    this.bytes += text.length;
    while (this.texts.length > this.limits.maxEvents || (this.bytes > this.limits.maxBytes && this.texts.length > 1)) {
      this.bytes -= this.texts.shift()!.length;
      this.first++;
    }
  }

  /** The events after `seq`, oldest first; null when some of them are no longer kept. */
  since(seq: number): string[] | null {
    if (!Number.isInteger(seq) || seq < 0 || seq > this.last) return null;
    if (seq + 1 < this.first) return null;
    return this.texts.slice(seq + 1 - this.first);
  }
}
