export { createAppStore, connectStore, type AppStore } from './createAppStore';
export { StoreProvider, useApp } from './StoreContext';
export type { AppState } from './types';
export type { TerminalTab } from './terminalSlice';
export type { OpenFile } from './viewerSlice';
export type { DiffTarget, OpenDiff, ReviewConflict, ReviewFilters } from './reviewSlice';
export { filterModifications } from './reviewSlice';
