// The open folder's hooks as the settings show them (`hook-row`): every hook the person's and the
// repository's files declare, its status and its last result, and the person's two moves,
// approving a repository's hook and turning one off in this folder.
import type { HookView } from '../../shared/contract';
import type { HookListing, Hooks } from '../services/hooks/hooks';

export function hookView(l: HookListing): HookView {
  return {
    id: l.id,
    event: l.ref.event,
    matcher: l.ref.matcher,
    source: l.ref.source,
    owner: l.ref.owner,
    kind: l.kind,
    command: l.ref.line,
    status: l.status,
    detail: l.detail,
    sandboxed: l.sandboxed,
    timeout_s: l.timeout_s,
    last: l.last ? { ...l.last } : null,
  };
}

export const listHooks = async (hooks: Hooks): Promise<HookView[]> => (await hooks.list()).map(hookView);
