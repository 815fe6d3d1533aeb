import { useApp } from '../store';
import { FolderOpenIcon, LogoIcon, PanelRightIcon } from './icons';
import { modKey } from './platform';

export function TopBar() {
  const name = useApp((s) => s.workspace?.name);
  const root = useApp((s) => s.workspace?.root);
  const opening = useApp((s) => s.opening);
  const requestOpenFolder = useApp((s) => s.requestOpenFolder);

  return (
    <header className="topbar">
      <div className="topbar-brand">
        <LogoIcon size={16} />
        <span>Loupe</span>
      </div>
      {name !== undefined && (
        <>
          <span className="topbar-sep" aria-hidden="true">
            /
          </span>
          <span className="topbar-workspace" data-testid="workspace-root" data-root={root} title={root}>
            {name}
          </span>
        </>
      )}
      <button
        type="button"
        className="topbar-open"
        data-testid="open-folder"
        onClick={() => void requestOpenFolder()}
        disabled={opening}
        title={`Open Folder… (${modKey}+O)`}
      >
        <FolderOpenIcon size={14} />
        <span>Open Folder…</span>
      </button>
      <div className="topbar-spacer" />
      {name !== undefined && <AgentToggle />}
    </header>
  );
}

/** Shows or hides the agent column; a question waiting there shows as a count, one click away. */
function AgentToggle() {
  const open = useApp((s) => s.agentColumnOpen);
  const pending = useApp((s) => s.approvals.length);
  const toggle = useApp((s) => s.toggleAgentColumn);
  const what = open ? 'Hide the agent column' : 'Show the agent column';
  return (
    <button
      type="button"
      className={open ? 'topbar-toggle active' : 'topbar-toggle'}
      data-testid="agent-toggle"
      data-pending={pending}
      aria-pressed={open}
      aria-label={pending > 0 ? `${what} (${pending} waiting for your approval)` : what}
      title={pending > 0 ? `${what} · ${pending} waiting for your approval` : what}
      onClick={toggle}
    >
      <PanelRightIcon size={15} />
      <span>Agent</span>
      {pending > 0 && <span className="tab-badge topbar-badge">{pending}</span>}
    </button>
  );
}
