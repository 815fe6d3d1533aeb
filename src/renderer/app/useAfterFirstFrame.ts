import { startTransition, useEffect, useState } from 'react';

let painted = false;

/**
 * False until the window has drawn one frame, then true (and true at once for anything mounted
 * later). The first frame draws the tree; what is not the tree (viewer, terminal, the agent
 * column) renders in the next task, so it does not hold that frame back (docs/architecture.md,
 * "Big folders").
 */
export function useAfterFirstFrame(): boolean {
  const [after, setAfter] = useState(painted);
  useEffect(() => {
    if (after) return;
    let live = true;
    const done = () => {
      painted = true;
      // A transition: React renders the rest in slices of a few ms between the index's events;
      // rendered at once it was one task of up to 155 ms at 100k files (docs/architecture.md).
      if (live) startTransition(() => setAfter(true));
    };
    // A hidden page draws no frames (a background tab, a window not shown yet): nothing to wait for.
    if (document.visibilityState === 'hidden') return done();
    const onHidden = () => document.visibilityState === 'hidden' && done();
    document.addEventListener('visibilitychange', onHidden);
    // A rAF callback runs just before the frame is drawn; a message posted from it lands after.
    const frame = requestAnimationFrame(() => {
      const ch = new MessageChannel();
      ch.port1.onmessage = done;
      ch.port2.postMessage(null);
    });
    return () => {
      live = false;
      cancelAnimationFrame(frame);
      document.removeEventListener('visibilitychange', onHidden);
    };
  }, [after]);
  return after;
}
