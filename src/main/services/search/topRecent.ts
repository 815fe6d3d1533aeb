// The `limit` most recently modified files of a listing, kept while the listing streams in: a
// bounded heap instead of sorting every file, since a listing of 100,000 files shows 100.

export interface Recent {
  path: string;
  mtimeMs: number;
}

/** Newest first; equal times by path, so the order never depends on rg's walk. */
export function newerFirst(a: Recent, b: Recent): number {
  return b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
}

export class TopRecent {
  /** A heap whose root is the entry that would be shown last (the first to drop). */
  private readonly heap: Recent[] = [];

  constructor(private readonly limit: number) {}

  add(entry: Recent): void {
    const h = this.heap;
    if (h.length < this.limit) {
      h.push(entry);
      this.up(h.length - 1);
    } else if (this.limit > 0 && newerFirst(entry, h[0]) < 0) {
      h[0] = entry;
      this.down(0);
    }
  }

  /** The kept entries, newest first. */
  sorted(): Recent[] {
    return [...this.heap].sort(newerFirst);
  }

  // Heap order: a parent is shown after its children (newerFirst(parent, child) > 0).
  private up(i: number): void {
    const h = this.heap;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (newerFirst(h[p], h[i]) >= 0) return;
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
      if (l < h.length && newerFirst(h[l], h[last]) > 0) last = l;
      if (r < h.length && newerFirst(h[r], h[last]) > 0) last = r;
      if (last === i) return;
      [h[last], h[i]] = [h[i], h[last]];
      i = last;
    }
  }
}
