import { useState } from 'react';
import { useApp } from '../store';
import { goToWindow } from './navigate';
import './remote.css';

/** ssh://host/path from a host alias (or user@host:port) and a path there (~ for the home folder). */
export function sshTarget(host: string, path: string): string {
  const h = host.trim();
  if (/^(ssh|devcontainer):\/\//i.test(h)) return h;
  const p = path.trim() || '~';
  const rooted = p.startsWith('/') ? p : `/${p}`;
  return `ssh://${h}${rooted.split('/').map(encodeURIComponent).join('/')}`;
}

/**
 * Open Remote Folder: a host of ~/.ssh/config or one opened before, and a folder there. Loupe's
 * host is installed there and the folder opens in a window of its own (this tab, in a browser).
 */
export function RemoteDialog() {
  const open = useApp((s) => s.remoteDialogOpen);
  const hosts = useApp((s) => s.remoteHosts);
  const recent = useApp((s) => s.remoteRecent);
  const opening = useApp((s) => s.remoteOpening);
  const error = useApp((s) => s.remoteError);
  const transport = useApp((s) => s.transport);
  const close = useApp((s) => s.closeRemoteDialog);
  const openRemote = useApp((s) => s.openRemote);
  const [host, setHost] = useState('');
  const [path, setPath] = useState('~');
  if (!open) return null;

  const go = async (target: string) => {
    const url = await openRemote(target);
    if (url) goToWindow(url, transport);
  };

  return (
    <div className="dialog-backdrop" onMouseDown={(e) => e.target === e.currentTarget && !opening && close()}>
      <div className="folder-dialog remote-dialog" role="dialog" aria-modal="true" aria-label="Open remote folder" data-testid="remote-dialog">
        <div className="folder-dialog-title">Open Remote Folder</div>
        <form
          className="remote-form"
          onSubmit={(e) => {
            e.preventDefault();
            void go(sshTarget(host, path));
          }}
        >
          <label className="remote-field">
            <span>Host</span>
            <input className="text-input" data-testid="remote-host-input" value={host} placeholder="build-box, or alice@10.0.0.5:2222" autoFocus onChange={(e) => setHost(e.target.value)} disabled={opening !== null} />
          </label>
          <label className="remote-field">
            <span>Folder there</span>
            <input className="text-input" data-testid="remote-path-input" value={path} placeholder="~/src/app" onChange={(e) => setPath(e.target.value)} disabled={opening !== null} />
          </label>
          <div className="remote-actions">
            <button type="button" className="btn" onClick={close} disabled={opening !== null}>
              Cancel
            </button>
            <button type="submit" className="btn btn-primary" data-testid="remote-open-submit" disabled={opening !== null || !host.trim()}>
              {opening ? 'Opening…' : 'Open'}
            </button>
          </div>
        </form>
        {opening && (
          <div className="remote-progress" role="status" data-testid="remote-opening">
            <span className="connection-spinner" aria-hidden="true" />
            Connecting to {opening} and starting Loupe there (the first time, Loupe is copied over)…
          </div>
        )}
        {error && (
          <div className="open-folder-error" role="alert" data-testid="remote-open-error">
            {error}
          </div>
        )}
        {hosts.length > 0 && (
          <section className="recent">
            <h3 className="recent-title">Hosts in your ssh config</h3>
            <ul className="recent-list">
              {hosts.map((h) => (
                <li key={h.host}>
                  <button type="button" className="recent-item" data-testid="remote-host" data-host={h.host} title={h.detail ?? h.host} onClick={() => setHost(h.host)} disabled={opening !== null}>
                    <span className="recent-name">{h.host}</span>
                    {h.detail && <span className="recent-dir">{h.detail}</span>}
                  </button>
                </li>
              ))}
            </ul>
          </section>
        )}
        {recent.length > 0 && (
          <section className="recent">
            <h3 className="recent-title">Opened before</h3>
            <ul className="recent-list">
              {recent.map((r) => (
                <li key={r.target}>
                  <button type="button" className="recent-item" data-testid="remote-recent" data-target={r.target} title={r.target} onClick={() => void go(r.target)} disabled={opening !== null}>
                    <span className="recent-name">{r.target}</span>
                  </button>
                </li>
              ))}
            </ul>
          </section>
        )}
        {transport === 'websocket' && <p className="remote-hint muted">The remote folder opens in this tab. Its host keeps running there when you close it.</p>}
      </div>
    </div>
  );
}
