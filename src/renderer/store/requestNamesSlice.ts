import type { ModificationView } from '../../shared/contract';
import type { SliceCreator } from './types';

export interface RequestNamesSlice {
  /** A request's name (its prompt's first line) by correlation id: the timeline and the diff say it instead of the id. */
  requestNames: Record<string, string>;
  /** Asks the host for the names of the requests these modifications (and the undos among them) belong to. */
  nameRequests(modifications: readonly ModificationView[]): Promise<void>;
  /** A request this page saw start: its prompt names it at once (the host saves it when it ends). */
  requestNamed(id: string, prompt: string): void;
  /** A request ended: its session is saved, so ids asked for in vain are worth asking again. */
  requestsSaved(): void;
  resetRequestNames(): void;
}

/** The first line of a prompt, short: what a row has room for (the full text is the chat's). */
export function nameOf(prompt: string): string {
  const line = prompt.trim().split('\n')[0].replace(/\s+/g, ' ');
  return line.length > 60 ? `${line.slice(0, 57)}…` : line;
}

const idsOf = (mods: readonly ModificationView[]): string[] => {
  const ids = new Set<string>();
  for (const m of mods) {
    if (m.correlation_id) ids.add(m.correlation_id);
    if (m.undo_of) ids.add(m.undo_of);
  }
  return [...ids];
};

export const createRequestNamesSlice: SliceCreator<RequestNamesSlice> = (set, get, { client }) => {
  // Asked once each until a request ends (another process's requests, or ones no session saved, stay ids).
  let asked = new Set<string>();
  return {
    requestNames: {},

    async nameRequests(mods) {
      const names = get().requestNames;
      const ids = idsOf(mods)
        .filter((id) => !(id in names) && !asked.has(id))
        .slice(0, 500);
      if (!ids.length) return;
      for (const id of ids) asked.add(id);
      const root = get().workspace?.root;
      try {
        const found = await client.request('modlog.requestNames', { ids });
        if (get().workspace?.root === root && Object.keys(found).length) set((s) => ({ requestNames: { ...s.requestNames, ...found } }));
      } catch {
        // The ids stay; the rows read as before.
      }
    },

    requestNamed(id, prompt) {
      const name = nameOf(prompt);
      if (name && get().requestNames[id] !== name) set((s) => ({ requestNames: { ...s.requestNames, [id]: name } }));
    },

    requestsSaved() {
      asked = new Set();
      void get().nameRequests(get().modifications);
    },

    resetRequestNames() {
      asked = new Set();
      set({ requestNames: {} });
    },
  };
};
