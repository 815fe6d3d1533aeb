// The diff view's code: the pane and its Monaco body are chunks of their own, fetched once the
// timeline or an approval card has something to open, so the first click does not wait for them
// (loadable, not React.lazy: see app/loadable for the 280 ms that Suspense cost here).
import { loadable } from '../app/loadable';

export const diffPane = loadable(() => import('./DiffPane'));
export const diffBody = loadable(() => import('./DiffBody'));

/** Set when a diff is first shown (in its commit): its own editor then does what the warm-up would. */
let opened = false;
export const markDiffOpened = (): void => {
  opened = true;
};

/**
 * Fetched once there is something to open, so the first click does not wait for it; then, when
 * the browser is idle, a throwaway diff editor warms Monaco up.
 */
export function preloadDiffView(): void {
  void diffPane.load().catch(() => undefined);
  void diffBody
    .load()
    .then((m) => requestIdleCallback(() => opened || m.warmUpDiffEditor(), { timeout: 5000 }))
    .catch(() => undefined);
}
