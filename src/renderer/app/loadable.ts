// Code-split components (Monaco's chunk) without React.lazy + Suspense: once Suspense has shown
// a fallback, React holds the resolved content back until 300 ms after that fallback appeared
// (its fallback throttle), and a lazy component suspends on its first render even when its chunk
// was preloaded long before. Measured on the 5,000-line diff: ~280 ms of idle before each first
// paint. Here a preloaded component renders at once, and one still loading arrives with an
// ordinary state update.
import { useEffect, useState, type ComponentType } from 'react';

export interface Loadable<M> {
  /** Starts (or joins) the load; a failed load is tried again next time. */
  load(): Promise<M>;
  /** The component once loaded (null until then), or the load's error. */
  use(): { Component: M[keyof M & 'default'] | null; error: string | null };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any props: each caller's module types its own
export function loadable<M extends { default: ComponentType<any> }>(importer: () => Promise<M>): Loadable<M> {
  let loaded: M | null = null;
  let pending: Promise<M> | null = null;
  const load = (): Promise<M> => {
    pending ??= importer().then(
      (m) => (loaded = m),
      (err: unknown) => {
        pending = null;
        throw err;
      },
    );
    return pending;
  };
  function use() {
    const [mod, setMod] = useState<M | null>(() => loaded);
    const [error, setError] = useState<string | null>(null);
    useEffect(() => {
      if (mod) return;
      let live = true;
      load().then(
        (m) => live && setMod(() => m),
        (err: unknown) => live && setError(err instanceof Error ? err.message : String(err)),
      );
      return () => {
        live = false;
      };
    }, [mod]);
    return { Component: mod?.default ?? null, error };
  }
  return { load, use };
}
