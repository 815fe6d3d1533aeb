import type { TerminalInfo } from '../../shared/contract';
import { errorMessage } from '../host-client';
import type { TerminalSink } from '../terminal/terminalIo';
import type { SliceCreator } from './types';

export interface TerminalTab {
  id: string;
  title: string;
  shell: string;
  pid: number;
  /** null while the process runs. */
  exitCode: number | null;
}

export interface TerminalSize {
  cols: number;
  rows: number;
}

export interface TerminalSlice {
  terminals: TerminalTab[];
  activeTerminalId: string | null;
  /** Bumped to ask the active terminal view to take keyboard focus. */
  terminalFocusNonce: number;
  terminalError: string | null;
  /** The size the pane last fitted to, so a new shell starts at the right width. */
  terminalSize: TerminalSize;

  /** `focus: false` for shells the app opens by itself: they must not take the keyboard from whatever the user is typing in. */
  createTerminal(opts?: { focus?: boolean }): Promise<void>;
  /** One terminal when a workspace opens: adopt the host's running ones first (after a reload). */
  ensureTerminal(): Promise<void>;
  syncTerminals(): Promise<void>;
  closeTerminal(id: string): void;
  setActiveTerminal(id: string): void;
  focusTerminal(): void;
  sendTerminalInput(id: string, data: string): void;
  resizeTerminal(id: string, cols: number, rows: number): void;
  ackTerminal(id: string, chars: number): void;
  attachTerminalOutput(id: string, sink: TerminalSink): () => void;
  terminalData(id: string, data: string): void;
  terminalExited(id: string, exitCode: number): void;
}

const toTab = (info: TerminalInfo): TerminalTab => ({ id: info.id, title: info.title, shell: info.shell, pid: info.pid, exitCode: null });

// Fire-and-forget requests whose failure the user cannot act on (the process may just have exited).
const quietly = (p: Promise<unknown>): void => {
  p.catch(() => undefined);
};

export const createTerminalSlice: SliceCreator<TerminalSlice> = (set, get, { client, terminalIo }) => {
  let ensuring: Promise<void> | null = null;

  return {
    terminals: [],
    activeTerminalId: null,
    terminalFocusNonce: 0,
    terminalError: null,
    terminalSize: { cols: 80, rows: 24 },

    async createTerminal(opts) {
      const focus = opts?.focus ?? true;
      const { cols, rows } = get().terminalSize;
      try {
        const info = await client.request('terminal.create', { cols, rows });
        set((s) => ({
          // A resync (reconnect) may have adopted it already, between the request and this reply.
          terminals: s.terminals.some((t) => t.id === info.id) ? s.terminals : [...s.terminals, toTab(info)],
          activeTerminalId: info.id,
          terminalError: null,
          terminalFocusNonce: focus ? s.terminalFocusNonce + 1 : s.terminalFocusNonce,
        }));
      } catch (err) {
        set({ terminalError: errorMessage(err) });
      }
    },

    ensureTerminal() {
      ensuring ??= (async () => {
        await get().syncTerminals();
        if (get().terminals.length === 0) await get().createTerminal({ focus: false });
      })().finally(() => {
        ensuring = null;
      });
      return ensuring;
    },

    async syncTerminals() {
      let running: TerminalInfo[];
      try {
        running = await client.request('terminal.list', undefined);
      } catch {
        return;
      }
      const alive = new Set(running.map((t) => t.id));
      const known = new Set(get().terminals.map((t) => t.id));
      for (const t of running) {
        // A shell that outlived a page reload: its earlier output went to the old page.
        if (!known.has(t.id)) terminalIo.push(t.id, { data: '\x1b[2m[reattached; earlier output is not shown]\x1b[0m\r\n', ack: false });
      }
      set((s) => {
        const known = new Set(s.terminals.map((t) => t.id));
        // A tab whose process vanished while we were away keeps its scrollback but shows it ended.
        const kept = s.terminals.map((t) => (alive.has(t.id) || t.exitCode !== null ? t : { ...t, exitCode: -1 }));
        const adopted = running.filter((t) => !known.has(t.id)).map(toTab);
        const terminals = [...kept, ...adopted];
        const activeTerminalId = s.activeTerminalId ?? terminals[0]?.id ?? null;
        return { terminals, activeTerminalId };
      });
    },

    closeTerminal(id) {
      terminalIo.forget(id);
      set((s) => {
        const index = s.terminals.findIndex((t) => t.id === id);
        const terminals = s.terminals.filter((t) => t.id !== id);
        const neighbour = terminals[Math.min(index, terminals.length - 1)]?.id ?? null;
        return { terminals, activeTerminalId: s.activeTerminalId === id ? neighbour : s.activeTerminalId };
      });
      // The host kills the whole process group, so children of the shell go too.
      quietly(client.request('terminal.kill', { id }));
    },

    setActiveTerminal(id) {
      set((s) => ({ activeTerminalId: id, terminalFocusNonce: s.terminalFocusNonce + 1 }));
    },

    focusTerminal() {
      if (get().terminals.length === 0) void get().createTerminal();
      else set((s) => ({ terminalFocusNonce: s.terminalFocusNonce + 1 }));
    },

    sendTerminalInput(id, data) {
      quietly(client.request('terminal.input', { id, data }));
    },

    resizeTerminal(id, cols, rows) {
      set({ terminalSize: { cols, rows } });
      quietly(client.request('terminal.resize', { id, cols, rows }));
    },

    ackTerminal(id, chars) {
      quietly(client.request('terminal.ack', { id, chars }));
    },

    attachTerminalOutput(id, sink) {
      return terminalIo.attach(id, sink);
    },

    terminalData(id, data) {
      terminalIo.push(id, { data, ack: true });
    },

    terminalExited(id, exitCode) {
      set((s) => ({ terminals: s.terminals.map((t) => (t.id === id ? { ...t, exitCode } : t)) }));
      terminalIo.push(id, { data: `\r\n\x1b[2m[process exited with code ${exitCode}]\x1b[0m\r\n`, ack: false });
    },
  };
};
