import type { StoreApi } from 'zustand/vanilla';
import type { HostConnection } from '../host-client';
import type { TerminalIo } from '../terminal/terminalIo';
import type { ApprovalsSlice } from './approvalsSlice';
import type { ChatSlice } from './chatSlice';
import type { ComposerSlice } from './composerSlice';
import type { ExportSlice } from './exportSlice';
import type { ConnectionSlice } from './connectionSlice';
import type { PanelsSlice } from './panelsSlice';
import type { PromptSlice } from './promptSlice';
import type { ProblemsSlice } from './problemsSlice';
import type { ProcessesSlice } from './processesSlice';
import type { McpSlice } from './mcpSlice';
import type { AgentsSlice } from './agentsSlice';
import type { HooksSlice } from './hooksSlice';
import type { RemoteSlice } from './remoteSlice';
import type { ReviewSlice } from './reviewSlice';
import type { RequestNamesSlice } from './requestNamesSlice';
import type { SettingsSlice } from './settingsSlice';
import type { SlashSlice } from './slashSlice';
import type { SteerSlice } from './steerSlice';
import type { TerminalSlice } from './terminalSlice';
import type { TreeSlice } from './treeSlice';
import type { TrustSlice } from './trustSlice';
import type { UndoSlice } from './undoSlice';
import type { ViewerSlice } from './viewerSlice';
import type { WorkspaceSlice } from './workspaceSlice';
import type { WorktreeSessionsSlice } from './worktreeSessionsSlice';

export type AppState = ConnectionSlice &
  WorkspaceSlice &
  TreeSlice &
  ViewerSlice &
  TerminalSlice &
  ReviewSlice &
  RequestNamesSlice &
  RemoteSlice &
  ChatSlice &
  ComposerSlice &
  SlashSlice &
  SteerSlice &
  ApprovalsSlice &
  SettingsSlice &
  PanelsSlice &
  TrustSlice &
  UndoSlice &
  PromptSlice &
  ProcessesSlice &
  ProblemsSlice &
  McpSlice &
  AgentsSlice &
  HooksSlice &
  WorktreeSessionsSlice &
  ExportSlice;

/** What the slices reach beyond the store: injected at startup, faked in tests. */
export interface StoreDeps {
  client: HostConnection;
  terminalIo: TerminalIo;
}

export type SetState = StoreApi<AppState>['setState'];
export type GetState = StoreApi<AppState>['getState'];

export type SliceCreator<T> = (set: SetState, get: GetState, deps: StoreDeps) => T;
