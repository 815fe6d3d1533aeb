import type { SystemPromptView } from '../../shared/contract';
import type { SliceCreator } from './types';

/** The file names the agent reads as standing instructions (docs/architecture.md, "What the agent is told"). */
const INSTRUCTION_FILE = /(^|\/)(AGENTS\.md|CLAUDE\.md|\.cursorrules|copilot-instructions\.md|[^/]+\.mdc)$/;

export interface PromptSlice {
  /** What the open session's model was told, or before its first request what it would be told; null until known. */
  systemPrompt: (SystemPromptView & { sent: boolean }) | null;
  loadSystemPrompt(): Promise<void>;
  /** A `system_prompt` event of the open session: the chips follow what was sent. */
  systemPromptSent(view: SystemPromptView): void;
  /** Files changed on disk: before anything was sent, the preview follows an instruction file's change. */
  instructionFilesChanged(paths: string[], truncated: boolean): void;
}

export const createPromptSlice: SliceCreator<PromptSlice> = (set, get, { client }) => {
  let seq = 0;
  return {
    systemPrompt: null,

    async loadSystemPrompt() {
      const mine = ++seq;
      const sessionId = get().chatSessionId;
      try {
        const view = await client.request('chat.systemPrompt', sessionId ? { session_id: sessionId } : {});
        if (mine === seq) set({ systemPrompt: view });
      } catch {
        if (mine === seq) set({ systemPrompt: null });
      }
    },

    systemPromptSent(view) {
      seq++;
      set({ systemPrompt: { ...view, sent: true } });
    },

    instructionFilesChanged(paths, truncated) {
      if (get().systemPrompt?.sent) return;
      if (truncated || paths.some((p) => INSTRUCTION_FILE.test(p))) void get().loadSystemPrompt();
    },
  };
};
