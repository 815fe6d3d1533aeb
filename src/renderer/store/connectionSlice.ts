import type { RemoteStatusView } from '../../shared/contract';
import type { ConnectionStatus } from '../host-client';
import type { SliceCreator } from './types';

// Larger than any backlog the host allows (it pauses at 100k), so one ack clears the count.
const LOST_OUTPUT_ACK = 1_000_000_000;

export interface AppInfo {
  version: string;
  platform: string;
}

export interface ConnectionSlice {
  transport: 'electron' | 'websocket';
  connection: ConnectionStatus;
  appInfo: AppInfo | null;
  /** The remote workspace this window shows (where, the link, forwarded ports); null: this machine. */
  remote: RemoteStatusView | null;
  connectionChanged(status: ConnectionStatus): void;
  loadAppInfo(): Promise<void>;
  loadRemoteStatus(): Promise<void>;
  remoteChanged(status: RemoteStatusView): void;
  /**
   * After a reconnect whose missed events could not be replayed (the host restarted, or more
   * happened than it keeps): everything we hold may be stale, so ask again.
   */
  resync(): Promise<void>;
}

export const createConnectionSlice: SliceCreator<ConnectionSlice> = (set, get, { client }) => ({
  transport: client.transport,
  connection: client.status(),
  appInfo: null,
  remote: null,

  connectionChanged(status) {
    set({ connection: status });
  },

  async loadAppInfo() {
    try {
      const info = await client.request('app.info', undefined);
      set({ appInfo: { version: info.version, platform: info.platform } });
    } catch {
      // Only decorates the status bar.
    }
  },

  async loadRemoteStatus() {
    try {
      const remote = await client.request('remote.status', undefined);
      if (remote) set({ remote });
    } catch {
      // An older host: a folder of its own machine.
    }
  },

  remoteChanged(remote) {
    set({ remote });
  },

  async resync() {
    const current = await client.request('workspace.current', undefined).catch(() => null);
    const state = get();
    if (current && current.root !== state.workspace?.root) {
      state.workspaceOpened(current);
      return;
    }
    if (!current) return;
    // Output sent while the socket was down is lost and will never be acknowledged; without
    // this the host would count it forever and could keep a shell paused.
    for (const t of state.terminals) if (t.exitCode === null) state.ackTerminal(t.id, LOST_OUTPUT_ACK);
    const open = state.chatSessionId;
    await Promise.all([
      state.refreshDirs(Object.keys(state.listings)),
      state.loadGitStatus(),
      state.syncTerminals(),
      state.reloadOpenFile(),
      state.loadModifications(),
      state.loadApprovals(),
      state.loadProcesses(),
      state.loadMcpServers(),
      state.loadLspStatus(),
      state.loadWorktreeSessions(),
      state.loadChatSessions(),
      open ? state.openChatSession(open) : Promise.resolve(),
      state.loadRemoteStatus(),
    ]);
  },
});
