import { createContext, useContext, type ReactNode } from 'react';
import { useStore } from 'zustand';
import type { AppStore } from './createAppStore';
import type { AppState } from './types';

const StoreContext = createContext<AppStore | null>(null);

export function StoreProvider({ store, children }: { store: AppStore; children: ReactNode }) {
  return <StoreContext.Provider value={store}>{children}</StoreContext.Provider>;
}

function useAppStoreApi(): AppStore {
  const store = useContext(StoreContext);
  if (!store) throw new Error('useApp used outside <StoreProvider>');
  return store;
}

/** Select one value from the store; components re-render only when that value changes. */
export function useApp<T>(selector: (state: AppState) => T): T {
  return useStore(useAppStoreApi(), selector);
}
