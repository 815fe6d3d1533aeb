import { useApp } from '../store';
import { goToWindow } from '../remote/navigate';
import { FolderOpenIcon, LogoIcon, PanelRightIcon } from './icons';
import { modKey } from './platform';

export function TopBar() {
  const name = useApp((s) => s.workspace?.name);
  const root = useApp((s) => s.workspace?.root);
  const opening = useApp((s) => s.opening);
  const requestOpenFolder = useApp((s) => s.requestOpenFolder);
  const openRemoteDialog = useApp((s) => s.openRemoteDialog);
  const remote = useApp((s) => s.remote);

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
      <button type="button" className="topbar-open" data-testid="open-remote" onClick={openRemoteDialog} title={`Open Remote Folder… over ssh (${modKey}+Shift+O)`}>
        <span>Open Remote…</span>
      </button>
      {!remote && <ReopenInContainer />}
      <div className="topbar-spacer" />
      {name !== undefined && <AgentToggle />}
    </header>
  );
}

/** A folder with a dev container definition: open it again inside its container. */
function ReopenInContainer() {
  const root = useApp((s) => (s.workspace?.devcontainer ? s.workspace.root : null));
  const opening = useApp((s) => s.remoteOpening);
  const error = useApp((s) => s.remoteError);
  const transport = useApp((s) => s.transport);
  const openRemote = useApp((s) => s.openRemote);
  if (!root) return null;
  const target = `devcontainer://${root.split('/').map(encodeURIComponent).join('/')}`;
  return (
    <button
      type="button"
      className="topbar-open topbar-container"
      data-testid="reopen-in-container"
      disabled={opening !== null}
      title={error ?? 'Build or start this folder\u2019s dev container (.devcontainer/devcontainer.json) and open the folder inside it'}
      onClick={() => void openRemote(target).then((url) => url && goToWindow(url, transport))}
    >
      <span>{opening === target ? 'Starting the container…' : 'Reopen in Container'}</span>
    </button>
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
