// Per-key serialisation for writes. Re-entrant within one async call chain, so a tool can
// hold a file's lock across read-check-compute and still call apply(), which locks too.
import { AsyncLocalStorage } from 'node:async_hooks';

export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();
  private readonly held = new AsyncLocalStorage<ReadonlySet<string>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const mine = this.held.getStore();
    if (mine?.has(key)) return fn();
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const tail = previous.then(() => gate);
    this.tails.set(key, tail);
    await previous;
    try {
      return await this.held.run(new Set([...(mine ?? []), key]), fn);
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Runs `fn` holding every key's lock, taken in sorted order so two batches cannot wait on each other. */
  runAll<T>(keys: readonly string[], fn: () => Promise<T>): Promise<T> {
    const sorted = [...new Set(keys)].sort();
    const take = (i: number): Promise<T> => (i === sorted.length ? fn() : this.run(sorted[i], () => take(i + 1)));
    return take(0);
  }
}
