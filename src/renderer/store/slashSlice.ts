import type { CommandInputView, SlashCommandView } from '../../shared/contract';
import { errorMessage } from '../host-client';
import type { SliceCreator } from './types';

/** A message whose command asks for values by name (VS Code's `${input:…}`), held until they are given. */
export interface PendingInputs {
  text: string;
  command: string;
  inputs: CommandInputView[];
}

export interface SlashSlice {
  /** The commands and skills in reach of the open folder (null until first asked for). */
  slashCommands: SlashCommandView[] | null;
  slashProblems: { path: string; reason: string }[];
  slashError: string | null;
  slashInputs: PendingInputs | null;
  /** Asks the host again; the last list stays in use meanwhile (the picker opens on it at once). */
  loadSlashCommands(): Promise<void>;
  askSlashInputs(pending: PendingInputs): void;
  /** Sends the held message again with the values given. */
  answerSlashInputs(values: Record<string, string>): Promise<void>;
  cancelSlashInputs(): void;
}

export const createSlashSlice: SliceCreator<SlashSlice> = (set, get, { client }) => {
  let loading: Promise<void> | null = null;
  return {
    slashCommands: null,
    slashProblems: [],
    slashError: null,
    slashInputs: null,

    loadSlashCommands() {
      loading ??= client
        .request('commands.list', undefined)
        .then(
          (r) => set({ slashCommands: r.commands, slashProblems: r.problems, slashError: null }),
          (err: unknown) => set({ slashError: errorMessage(err) }),
        )
        .finally(() => (loading = null));
      return loading;
    },

    askSlashInputs: (pending) => set({ slashInputs: pending }),

    async answerSlashInputs(values) {
      const pending = get().slashInputs;
      if (!pending) return;
      set({ slashInputs: null });
      await get().sendChat(pending.text, { inputs: values });
    },

    cancelSlashInputs: () => set({ slashInputs: null }),
  };
};
