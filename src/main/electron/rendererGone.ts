// A window whose renderer died shows nothing and answers nothing. Say so and offer Reload.
import type { MessageBoxOptions, RenderProcessGoneDetails } from 'electron';

/** Reasons that are a crash; 'clean-exit' is the window closing. */
const CRASHES = new Set(['abnormal-exit', 'killed', 'crashed', 'oom', 'launch-failed', 'integrity-failure', 'memory-eviction']);

export interface CrashedWindow {
  isDestroyed(): boolean;
  reload(): void;
  close(): void;
}

/**
 * Asks whether to reload the window after its renderer crashed: reloads, or closes the dead
 * window. Resolves with whether it reloaded.
 */
export async function offerReload(
  win: CrashedWindow,
  details: Pick<RenderProcessGoneDetails, 'reason' | 'exitCode'>,
  showMessageBox: (options: MessageBoxOptions) => Promise<{ response: number }>,
): Promise<boolean> {
  if (!CRASHES.has(details.reason) || win.isDestroyed()) return false;
  const { response } = await showMessageBox({
    type: 'error',
    message: 'The Loupe window stopped working',
    detail: `Its page ended (${details.reason}, exit code ${details.exitCode}). The agent, your changes and your terminals run outside the page and are still there; reload to see them again.`,
    buttons: ['Reload', 'Close Window'],
    defaultId: 0,
    cancelId: 1,
    noLink: true,
  });
  if (win.isDestroyed()) return false;
  if (response !== 0) {
    win.close();
    return false;
  }
  win.reload();
  return true;
}
