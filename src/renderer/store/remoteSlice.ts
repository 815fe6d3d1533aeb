import type { RemoteHostView, RemoteLinkState, RemoteRecentView, RemoteStatusView } from '../../shared/contract';
import type { ConnectionStatus } from '../host-client';
import { errorMessage } from '../host-client';
import type { SliceCreator } from './types';

export interface RemoteSlice {
  remoteDialogOpen: boolean;
  remoteHosts: RemoteHostView[];
  remoteRecent: RemoteRecentView[];
  /** The target being opened (connecting, installing Loupe there…). */
  remoteOpening: string | null;
  remoteError: string | null;
  openRemoteDialog(): void;
  closeRemoteDialog(): void;
  loadRemoteHosts(): Promise<void>;
  /** Opens the target in a window of its own; resolves with its address (null on failure, said in remoteError). */
  openRemote(target: string): Promise<string | null>;
}

export const createRemoteSlice: SliceCreator<RemoteSlice> = (set, get, { client }) => ({
  remoteDialogOpen: false,
  remoteHosts: [],
  remoteRecent: [],
  remoteOpening: null,
  remoteError: null,

  openRemoteDialog() {
    set({ remoteDialogOpen: true, remoteError: null });
    void get().loadRemoteHosts();
  },

  closeRemoteDialog() {
    set({ remoteDialogOpen: false, remoteError: null });
  },

  async loadRemoteHosts() {
    try {
      const r = await client.request('remote.hosts', undefined);
      set({ remoteHosts: r.hosts, remoteRecent: r.recent });
    } catch (err) {
      set({ remoteError: errorMessage(err) });
    }
  },

  async openRemote(target) {
    const t = target.trim();
    if (!t) {
      set({ remoteError: 'Type ssh://[user@]host[:port]/path, or pick a host.' });
      return null;
    }
    set({ remoteOpening: t, remoteError: null });
    try {
      const { url } = await client.request('remote.open', { target: t });
      set({ remoteDialogOpen: false });
      return url;
    } catch (err) {
      set({ remoteError: errorMessage(err) });
      return null;
    } finally {
      set({ remoteOpening: null });
    }
  },
});

/** The state `remote-status` shows: this window's own link first, then the socket to this machine under it. */
export function remoteLinkState(remote: RemoteStatusView | null, connection: ConnectionStatus): RemoteLinkState | null {
  if (!remote) return null;
  if (connection.state === 'lost') return 'lost';
  if (connection.state === 'connecting') return 'connecting';
  if (connection.state === 'reconnecting') return 'reconnecting';
  return connection.link?.state ?? remote.state;
}
