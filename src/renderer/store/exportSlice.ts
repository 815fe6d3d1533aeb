import { errorMessage } from '../host-client';
import type { SliceCreator } from './types';

/** The open session written out: a download in the browser, the save dialog in the desktop app. */
export interface ExportSlice {
  /** How the last export went, in a sentence; null when there is nothing to say. */
  chatExport: { ok: boolean; message: string } | null;
  exportChatSession(format: 'md' | 'json'): Promise<void>;
  dismissChatExport(): void;
}

/** Hands `text` to the browser as a file to save (a download), named `name`. */
function download(name: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.style.display = 'none';
  document.body.append(a);
  a.click();
  a.remove();
  // After the click the browser holds its own reference; a moment later the URL can go.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export const createExportSlice: SliceCreator<ExportSlice> = (set, get, { client }) => ({
  chatExport: null,
  async exportChatSession(format) {
    const id = get().chatSessionId;
    if (!id || !get().chatItems.length) {
      set({ chatExport: { ok: false, message: 'Nothing to export yet: this session has no request.' } });
      return;
    }
    try {
      if (client.transport === 'electron') {
        const saved = await client.request('chat.exportToFile', { session_id: id, format });
        set({ chatExport: saved ? { ok: true, message: `Exported to ${saved.path}` } : null });
        return;
      }
      const { file_name, text } = await client.request('chat.export', { session_id: id, format });
      download(file_name, text, format === 'json' ? 'application/json' : 'text/markdown');
      set({ chatExport: { ok: true, message: `Downloaded ${file_name}` } });
    } catch (err) {
      set({ chatExport: { ok: false, message: `The export failed: ${errorMessage(err)}` } });
    }
  },
  dismissChatExport: () => set({ chatExport: null }),
});
