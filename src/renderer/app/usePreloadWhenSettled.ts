import { useEffect } from 'react';
import { useApp } from '../store';

/** If the index never reports (a host too old to say), preloading still happens after this. */
const FALLBACK_MS = 15_000;

/**
 * Runs `preload` (fetching and evaluating a big chunk such as Monaco, one long task of
 * 100-200 ms) once the folder's index is complete and the browser is idle, so the page stays
 * responsive while a big folder indexes, and the first click on a file still finds it loaded.
 */
export function usePreloadWhenSettled(preload: () => void, enabled = true): void {
  const settled = useApp((s) => s.indexProgress?.done === true);
  useEffect(() => {
    if (!enabled) return;
    let idle = 0;
    const run = () => (idle = requestIdleCallback(preload, { timeout: 2000 }));
    const timer = settled ? (run(), 0) : setTimeout(run, FALLBACK_MS);
    return () => {
      clearTimeout(timer);
      cancelIdleCallback(idle);
    };
  }, [settled, enabled, preload]);
}
