import { useApp } from '../store';

/** Act or plan: in plan mode the agent only reads (the permission layer refuses the rest) and answers with a plan. */
export function ModeSwitch() {
  const mode = useApp((s) => s.chatMode);
  const setMode = useApp((s) => s.setChatMode);
  const plan = mode === 'plan';
  return (
    <button
      type="button"
      // The pill of the edits mode beside it; blue while planning.
      className={plan ? 'chat-edits-mode chat-mode plan' : 'chat-edits-mode chat-mode'}
      data-testid="mode-switch"
      data-mode={mode}
      aria-pressed={plan}
      title={plan ? 'Plan mode: the agent only reads and answers with a plan; nothing is written. Click to act.' : 'Act mode: the agent works as the rules allow. Click to plan first (read only).'}
      onClick={() => setMode(plan ? 'act' : 'plan')}
    >
      {plan ? 'Plan' : 'Act'}
    </button>
  );
}
