import type { ModificationView } from '../../shared/contract';
import type { AppState } from './types';

/** The requests each loaded timeline names, built once per list (every message asks). */
const cache = new WeakMap<ModificationView[], Set<string>>();

function correlationsOf(mods: ModificationView[]): Set<string> {
  let set = cache.get(mods);
  if (!set) {
    set = new Set(mods.flatMap((m) => (m.correlation_id ? [m.correlation_id] : [])));
    cache.set(mods, set);
  }
  return set;
}

/**
 * Whether this request changed something: it left a modification in the log, so "Undo changes
 * from here" is offered on it. Unknown counts as yes: a worktree session keeps its own log, and a
 * timeline not loaded whole may lack an old request's rows.
 */
export function requestChangedFiles(s: AppState, correlationId: string): boolean {
  if (s.timelineStatus !== 'ready' || s.modifications.length < s.modificationsTotal) return true;
  if (s.worktreeSessions.some((w) => w.session_id === s.chatSessionId)) return true;
  return correlationsOf(s.modifications).has(correlationId);
}
