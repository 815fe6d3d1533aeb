import { createStore, type StoreApi } from 'zustand/vanilla';
import type { BootData } from '../../shared/contract';
import type { HostConnection } from '../host-client';
import { TerminalIo } from '../terminal/terminalIo';
import { createApprovalsSlice } from './approvalsSlice';
import { createChatSlice } from './chatSlice';
import { createComposerSlice } from './composerSlice';
import { createExportSlice } from './exportSlice';
import { createConnectionSlice } from './connectionSlice';
import { createPanelsSlice } from './panelsSlice';
import { createPromptSlice } from './promptSlice';
import { createProblemsSlice } from './problemsSlice';
import { createProcessesSlice } from './processesSlice';
import { createMcpSlice } from './mcpSlice';
import { createAgentsSlice } from './agentsSlice';
import { createHooksSlice } from './hooksSlice';
import { createRemoteSlice } from './remoteSlice';
import { createReviewSlice } from './reviewSlice';
import { createRequestNamesSlice } from './requestNamesSlice';
import { createSettingsSlice } from './settingsSlice';
import { createSlashSlice } from './slashSlice';
import { createSteerSlice } from './steerSlice';
import { createTerminalSlice } from './terminalSlice';
import { createTreeSlice } from './treeSlice';
import { createTrustSlice } from './trustSlice';
import { createUndoSlice } from './undoSlice';
import type { AppState, StoreDeps } from './types';
import { createViewerSlice } from './viewerSlice';
import { createWorkspaceSlice } from './workspaceSlice';
import { createWorktreeSessionsSlice } from './worktreeSessionsSlice';

export type AppStore = StoreApi<AppState>;

/** The one store of the renderer, its slices sharing the injected host client. */
export function createAppStore(client: HostConnection): AppStore {
  const deps: StoreDeps = { client, terminalIo: new TerminalIo() };
  return createStore<AppState>()((set, get) => ({
    ...createConnectionSlice(set, get, deps),
    ...createWorkspaceSlice(set, get, deps),
    ...createTreeSlice(set, get, deps),
    ...createViewerSlice(set, get, deps),
    ...createTerminalSlice(set, get, deps),
    ...createReviewSlice(set, get, deps),
    ...createRequestNamesSlice(set, get, deps),
    ...createRemoteSlice(set, get, deps),
    ...createChatSlice(set, get, deps),
    ...createComposerSlice(set, get, deps),
    ...createSlashSlice(set, get, deps),
    ...createSteerSlice(set, get, deps),
    ...createApprovalsSlice(set, get, deps),
    ...createSettingsSlice(set, get, deps),
    ...createPanelsSlice(set, get, deps),
    ...createTrustSlice(set, get, deps),
    ...createUndoSlice(set, get, deps),
    ...createPromptSlice(set, get, deps),
    ...createProcessesSlice(set, get, deps),
    ...createProblemsSlice(set, get, deps),
    ...createMcpSlice(set, get, deps),
    ...createAgentsSlice(set, get, deps),
    ...createHooksSlice(set, get, deps),
    ...createWorktreeSessionsSlice(set, get, deps),
    ...createExportSlice(set, get, deps),
  }));
}

/**
 * An edit waiting for approval opens in the centre pane (wide enough for its diff) unless another
 * diff is being looked at; once answered its view closes, and the next waiting edit takes its place.
 */
function followPendingEdits(store: AppStore, before: AppState['approvals']): void {
  const s = store.getState();
  const shown = s.diff?.target.kind === 'approval' ? s.diff.target.id : null;
  const answered = shown !== null && !s.approvals.some((a) => a.id === shown);
  if (answered) {
    const next = s.approvals.find((a) => a.edit);
    if (next) s.openPendingEdit(next.id);
    else s.closeDiff();
    return;
  }
  const fresh = s.approvals.find((a) => a.edit && !before.some((b) => b.id === a.id));
  if (fresh && s.diff === null) s.openPendingEdit(fresh.id);
}

/**
 * Routes host events and connection changes into store actions, then asks for the initial
 * state. Returns the unsubscribe for all of it.
 */
export function connectStore(store: AppStore, client: HostConnection, boot: BootData | null = null): () => void {
  const act = store.getState;
  const offs = [
    client.on('workspace.opened', (info) => {
      // Another folder, other commands and skills: asked for again when the picker next opens.
      store.setState({ slashCommands: null, slashInputs: null });
      act().workspaceOpened(info);
    }),
    client.on('workspace.notice', ({ root, message }) => act().workspaceNotice(root, message)),
    client.on('tree.changed', ({ dirs, all }) => void act().refreshDirs(all ? Object.keys(act().listings) : dirs)),
    client.on('tree.indexProgress', ({ root, files, done }) => act().indexProgressed(root, files, done)),
    client.on('tree.gitStatus', ({ status }) => act().setGitStatus(status)),
    client.on('tree.gitSlow', ({ slow }) => act().setGitSlow(slow)),
    client.on('file.changed', ({ paths, truncated }) => {
      // An edit in place changes no listing; the viewer follows the file itself.
      const changed = (p: string) => truncated === true || paths.includes(p);
      const open = act().openFile?.path;
      if (open && changed(open)) {
        void act().reloadOpenFile();
        void act().loadProblems(open);
      }
      const diff = act().diff?.target;
      if (diff?.kind === 'file' && changed(diff.path)) {
        void act().refreshDiff();
        if (diff.path !== open) void act().loadProblems(diff.path);
      }
      act().instructionFilesChanged(paths, truncated === true);
    }),
    client.on('modlog.changed', () => act().modlogChanged()),
    client.on('terminal.data', ({ id, data }) => act().terminalData(id, data)),
    client.on('terminal.exit', ({ id, exitCode }) => act().terminalExited(id, exitCode)),
    client.on('processes.changed', ({ processes }) => act().processesChanged(processes)),
    client.on('mcp.changed', ({ servers }) => act().mcpChanged(servers)),
    client.on('hooks.changed', ({ hooks }) => act().hooksChanged(hooks)),
    // The desktop app's File › Export Session…: the save dialog then picks Markdown or JSON by the name.
    client.on('app.command', ({ command }) => command === 'export-session' && void act().exportChatSession('md')),
    client.on('processes.data', ({ id, data, skipped }) => act().processData(id, data, skipped)),
    client.on('chat.event', ({ session_id, event }) => act().chatEvent(session_id, event)),
    client.on('chat.queued', ({ session_id, messages }) => act().queuedChanged(session_id, messages)),
    client.on('chat.event', ({ event }) => {
      // The timeline names a request by its prompt: known here as it starts, saved by the host as it ends.
      if (event.type === 'request_started' && !event.agent_id) act().requestNamed(event.correlation_id, event.prompt);
      if (event.type === 'request_finished' && !event.agent_id) act().requestsSaved();
    }),
    client.on('chat.event', ({ session_id, event }) => {
      if (event.type === 'system_prompt' && session_id === act().chatSessionId) act().systemPromptSent({ text: event.text, files: event.files, skipped: event.skipped });
    }),
    client.on('approvals.changed', ({ requests }) => act().approvalsChanged(requests)),
    client.on('trust.changed', (view) => act().trustChanged(view)),
    client.on('lsp.status', ({ servers }) => act().lspStatusChanged(servers)),
    client.on('lsp.problems', (view) => act().problemsChanged(view)),
    client.on('worktree.sessions', ({ sessions }) => act().worktreeSessionsChanged(sessions)),
    client.on('remote.status', (status) => act().remoteChanged(status)),
    client.onStatus((status) => act().connectionChanged(status)),
    client.onReset(() => void act().resync()),
    store.subscribe((s, prev) => {
      const folderChanged = s.workspace?.root !== prev.workspace?.root;
      // Another folder: its own log. Opening a file from the tree puts the viewer back in front.
      if (folderChanged) {
        act().resetReview();
        act().resetRequestNames();
        act().resetChat();
        act().approvalsChanged([]);
        act().trustChanged(null);
        act().resetProblems();
        act().resetWorktreeSessions();
        // After the tree's root listing, which workspaceOpened asks for right after this: the
        // host answers a client's requests two at a time, in order, and the first screen waits
        // for that one (at 100,000 files it was the fifteenth, behind the system prompt's git).
        if (s.workspace)
          queueMicrotask(() => {
            void act().loadTrust();
            void act().loadLspStatus();
            void act().loadModifications();
            void act().resumeChat();
            void act().loadApprovals();
            void act().loadEditsMode();
            void act().loadProcesses();
            void act().loadMcpServers();
            void act().loadAgents();
            void act().loadHooks();
            void act().loadWorktreeSessions();
            void act().loadSystemPrompt();
          });
      } else if (s.openFile !== prev.openFile && s.openFile?.status === 'loading' && s.diff) act().closeDiff();
      if (s.modifications !== prev.modifications) void act().nameRequests(s.modifications);
      // A file opened in the viewer: its server's markers.
      if (s.openFile?.path && s.openFile.path !== prev.openFile?.path) void act().loadProblems(s.openFile.path);
      // A file's diff against HEAD shows the file as it is now: the same markers.
      const diffPath = s.diff?.target.kind === 'file' ? s.diff.target.path : null;
      if (diffPath && diffPath !== (prev.diff?.target.kind === 'file' ? prev.diff.target.path : null)) void act().loadProblems(diffPath);
      // What the open session's model was (or, before its first request, would be) told.
      if (folderChanged ? !s.workspace : s.chatSessionId !== prev.chatSessionId) void act().loadSystemPrompt();
      // The folder's log is in: the column opens on the agent until there is something to review.
      if (s.timelineStatus === 'ready' && prev.timelineStatus !== 'ready') act().settleOpeningTab(s.modificationsTotal);
      // A new question pulls the agent tab to the front: a paused tool call must not go unseen.
      if (s.approvals.length > prev.approvals.length && s.agentPanelTab !== 'agent') act().setAgentPanelTab('agent');
      if (s.approvals !== prev.approvals) followPendingEdits(store, prev.approvals);
    }),
  ];
  void act().loadAppInfo();
  void act().loadRemoteStatus();
  void act().initWorkspace();
  // The folder and its root listing that came with the page: the first render shows them, before
  // the socket is up; initWorkspace's answers bring what changed since (usually nothing).
  if (boot) act().workspaceOpened(boot.workspace, Promise.resolve(boot.listing));
  // The model's settings load the agent in the host (a tenth of a second of its CPU): asked
  // once the first screen's tree listing is in, or at once when no folder is open.
  let settingsAsked = false;
  const askSettings = (s: AppState) => {
    if (settingsAsked || !s.workspaceKnown || (s.workspace && !s.listings[''] && !s.treeError)) return;
    settingsAsked = true;
    void act().loadSettings();
  };
  offs.push(store.subscribe(askSettings));
  return () => {
    for (const off of offs) off();
  };
}
