// The first `limit` items of a listing in a given order, kept while the listing streams in: a
// bounded heap instead of sorting everything, since a search over 100,000 files shows 100.
// The work happens as rg's output arrives, while rg is still walking.

export class TopK<T> {
  /** A heap whose root is the kept item that comes last (the first to drop). */
  private readonly heap: T[] = [];

  /** `order`: negative when `a` comes before `b`; a total order, so ties never depend on arrival. */
  constructor(
    private readonly limit: number,
    private readonly order: (a: T, b: T) => number,
  ) {}

  /** Whether `add(item)` would keep it now. */
  admits(item: T): boolean {
    return this.heap.length < this.limit || (this.limit > 0 && this.order(item, this.heap[0]) < 0);
  }

  add(item: T): void {
    const h = this.heap;
    if (h.length < this.limit) {
      h.push(item);
      this.up(h.length - 1);
    } else if (this.limit > 0 && this.order(item, h[0]) < 0) {
      h[0] = item;
      this.down(0);
    }
  }

  /** The kept items, in order. */
  sorted(): T[] {
    return [...this.heap].sort(this.order);
  }

  // Heap order: a parent comes after its children (order(parent, child) > 0).
  private up(i: number): void {
    const h = this.heap;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.order(h[p], h[i]) >= 0) return;
      [h[p], h[i]] = [h[i], h[p]];
      i = p;
    }
  }

  private down(i: number): void {
    const h = this.heap;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let last = i;
      if (l < h.length && this.order(h[l], h[last]) > 0) last = l;
      if (r < h.length && this.order(h[r], h[last]) > 0) last = r;
      if (last === i) return;
      [h[last], h[i]] = [h[i], h[last]];
      i = last;
    }
  }
}
