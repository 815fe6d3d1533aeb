import type { ForkView } from '../../shared/contract';
import { useApp } from '../store';

/** Where an edited message forked the conversation: the branches there, one shown at a time. */
export function BranchSwitch({ fork }: { fork: ForkView }) {
  const running = useApp((s) => s.chatRunning !== null);
  const switchBranch = useApp((s) => s.switchBranch);
  const at = fork.branches.findIndex((b) => b.current);
  const go = (i: number) => {
    const b = fork.branches[i];
    if (b && !b.current) void switchBranch(b.id);
  };
  return (
    <span className="chat-branch-switch" data-testid="branch-switch" role="group" aria-label="Versions of this message">
      <button type="button" className="icon-btn" aria-label="Previous version" title={fork.branches[at - 1]?.label} disabled={running || at <= 0} onClick={() => go(at - 1)}>
        ‹
      </button>
      <span className="chat-branch-pos">
        {at + 1}/{fork.branches.length}
      </span>
      <button type="button" className="icon-btn" aria-label="Next version" title={fork.branches[at + 1]?.label} disabled={running || at >= fork.branches.length - 1} onClick={() => go(at + 1)}>
        ›
      </button>
    </span>
  );
}
