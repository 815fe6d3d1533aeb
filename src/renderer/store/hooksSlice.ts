import type { HookView } from '../../shared/contract';
import { errorMessage } from '../host-client';
import type { SliceCreator } from './types';

/** The open folder's hooks, as the settings list them (`hook-row`). */
export interface HooksSlice {
  hooks: HookView[];
  hooksError: string | null;
  loadHooks(): Promise<void>;
  hooksChanged(list: HookView[]): void;
  approveHook(id: string): Promise<void>;
  setHookDisabled(id: string, disabled: boolean): Promise<void>;
}

export const createHooksSlice: SliceCreator<HooksSlice> = (set, _get, { client }) => {
  const act = async (run: () => Promise<HookView[]>) => {
    try {
      set({ hooks: await run(), hooksError: null });
    } catch (err) {
      set({ hooksError: errorMessage(err) });
    }
  };
  return {
    hooks: [],
    hooksError: null,
    async loadHooks() {
      try {
        set({ hooks: await client.request('hooks.list', undefined) });
      } catch {
        // No workspace yet: the list arrives with hooks.changed.
      }
    },
    hooksChanged(list) {
      set({ hooks: list });
    },
    approveHook: (id) => act(() => client.request('hooks.approve', { id })),
    setHookDisabled: (id, disabled) => act(() => client.request('hooks.setDisabled', { id, disabled })),
  };
};
