import { useApp } from '../store';
import { failedProcess } from '../store/processesSlice';

/** The tab beside the terminals: how many processes run, and a badge when one failed unseen. */
export function ProcessesTab() {
  const open = useApp((s) => s.processesOpen);
  const running = useApp((s) => s.processes.filter((p) => !p.ended_at).length);
  const unseen = useApp((s) => s.processes.filter((p) => failedProcess(p) && !s.seenFailures.includes(p.process_id)).length);
  const showProcesses = useApp((s) => s.showProcesses);
  return (
    <div
      role="tab"
      aria-selected={open}
      className={`terminal-tab processes-tab${open ? ' active' : ''}`}
      data-testid="processes-tab"
      title="Background processes the agent started"
      onClick={() => showProcesses(true)}
    >
      <span className="terminal-tab-title">Processes{running ? ` (${running})` : ''}</span>
      {unseen > 0 && (
        <span className="processes-badge" data-testid="processes-badge" aria-label={`${unseen} exited with an error`}>
          {unseen}
        </span>
      )}
    </div>
  );
}
