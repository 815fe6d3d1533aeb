import { useEffect } from 'react';
import { useApp } from '../store';

/** If the index never reports (a host too old to say), preloading still happens after this. */
const FALLBACK_MS = 15_000;

/**
 * When to preload, from what the host said of its index: at once when complete; after the
 * fallback when it never said anything; not while it reports a build in progress (a million
 * files took 20 s here, and a fallback timer fired in the middle of it).
 */
export function preloadPlan(progress: { done: boolean } | null): 'now' | 'fallback' | 'wait' {
  if (progress === null) return 'fallback';
  return progress.done ? 'now' : 'wait';
}

/**
 * Runs `preload` (fetching and evaluating a big chunk such as Monaco, one long task of
 * 100-200 ms) once the folder's index is complete and the browser is idle, so the page stays
 * responsive while a big folder indexes, and the first click on a file still finds it loaded.
 */
export function usePreloadWhenSettled(preload: () => void, enabled = true): void {
  const plan = useApp((s) => preloadPlan(s.indexProgress));
  useEffect(() => {
    if (!enabled || plan === 'wait') return;
    let idle = 0;
    const run = () => (idle = requestIdleCallback(preload, { timeout: 2000 }));
    const timer = plan === 'now' ? (run(), 0) : setTimeout(run, FALLBACK_MS);
    return () => {
      clearTimeout(timer);
      cancelIdleCallback(idle);
    };
  }, [plan, enabled, preload]);
}
