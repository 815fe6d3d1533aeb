import type { RemoteLinkState } from '../../shared/contract';
import { useApp } from '../store';
import { remoteLinkState } from '../store/remoteSlice';

const STATE_WORD: Record<RemoteLinkState, string> = { connecting: 'connecting…', connected: '', reconnecting: 'reconnecting…', lost: 'link lost' };

/** Where the workspace is (a host over ssh, a container) and how its link stands. */
export function RemoteStatus() {
  const remote = useApp((s) => s.remote);
  const connection = useApp((s) => s.connection);
  const state = remoteLinkState(remote, connection);
  if (!remote || !state) return null;
  const where = `${remote.kind === 'ssh' ? 'SSH' : 'Container'}: ${remote.label}`;
  const message = connection.link?.state === state ? connection.link.message : remote.message;
  const title = [`${where}, ${remote.path}`, state === 'connected' ? 'Connected' : `${STATE_WORD[state]}${message ? ` — ${message}` : ''}`, state !== 'connected' ? 'The agent, its commands and terminals keep running there.' : '']
    .filter(Boolean)
    .join('\n');
  return (
    <>
      <span className={`status-item status-remote status-remote-${state}`} data-testid="remote-status" data-state={state} data-kind={remote.kind} title={title}>
        <span className="status-dot" aria-hidden="true" />
        {where}
        {state !== 'connected' && <span className="status-remote-state"> · {STATE_WORD[state]}</span>}
      </span>
      {remote.sandbox && !remote.sandbox.active && (
        <span className="status-item status-warn" data-testid="remote-sandbox-off" title={`Commands there run outside the OS sandbox: ${remote.sandbox.reason ?? 'unknown reason'}`}>
          Sandbox off there
        </span>
      )}
    </>
  );
}
