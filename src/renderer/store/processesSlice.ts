import type { ProcessLogView, ProcessView } from '../../shared/contract';
import { errorMessage } from '../host-client';
import type { TerminalSink } from '../terminal/terminalIo';
import type { SliceCreator } from './types';

/** The Processes pane (beside the terminal tabs): the workspace's background processes. */
export interface ProcessesSlice {
  processes: ProcessView[];
  /** The bottom pane shows the processes instead of a terminal. */
  processesOpen: boolean;
  selectedProcessId: string | null;
  /** Ids of failed processes the person has seen (the badge counts the others). */
  seenFailures: string[];
  processesError: string | null;

  loadProcesses(): Promise<void>;
  processesChanged(list: ProcessView[]): void;
  showProcesses(open: boolean): void;
  /** Opens the pane on one process (the chat's tool card links here). */
  revealProcess(id: string): void;
  selectProcess(id: string | null): void;
  killProcess(id: string): Promise<void>;
  restartProcess(id: string): Promise<void>;
  /** The log viewer: its first bytes, then live data, with acks for flow control. */
  attachProcessLog(id: string, sink: TerminalSink): () => void;
  processData(id: string, data: string, skipped?: number): void;
  ackProcessLog(id: string, chars: number): void;
}

export const failedProcess = (p: ProcessView): boolean => p.status === 'exited' && p.exit_code !== 0;

export const createProcessesSlice: SliceCreator<ProcessesSlice> = (set, get, { client, terminalIo }) => {
  // Process logs share the terminals' routing (outside React state), under their own key.
  const key = (id: string) => `process:${id}`;
  const markSeen = () => set((s) => ({ seenFailures: [...new Set([...s.seenFailures, ...s.processes.filter(failedProcess).map((p) => p.process_id)])] }));
  return {
    processes: [],
    processesOpen: false,
    selectedProcessId: null,
    seenFailures: [],
    processesError: null,

    async loadProcesses() {
      try {
        get().processesChanged(await client.request('processes.list', undefined));
      } catch {
        // No workspace yet: the list arrives with processes.changed.
      }
    },

    processesChanged(list) {
      set((s) => ({
        processes: list,
        selectedProcessId: s.selectedProcessId && list.some((p) => p.process_id === s.selectedProcessId) ? s.selectedProcessId : (list[list.length - 1]?.process_id ?? null),
      }));
      if (get().processesOpen) markSeen();
    },

    showProcesses(open) {
      set({ processesOpen: open });
      if (open) markSeen();
    },

    revealProcess(id) {
      set({ processesOpen: true, selectedProcessId: id });
      markSeen();
    },

    selectProcess(id) {
      set({ selectedProcessId: id });
    },

    async killProcess(id) {
      try {
        await client.request('processes.kill', { id });
        set({ processesError: null });
      } catch (err) {
        set({ processesError: errorMessage(err) });
      }
    },

    async restartProcess(id) {
      try {
        await client.request('processes.restart', { id });
        set({ processesError: null });
      } catch (err) {
        set({ processesError: errorMessage(err) });
      }
    },

    attachProcessLog(id, sink) {
      const detach = terminalIo.attach(key(id), sink);
      let live = true;
      void client.request('processes.watch', { id }).then(
        (first: ProcessLogView | null) => {
          if (live && first?.data) sink({ data: first.data.replace(/\r?\n/g, '\r\n'), ack: false });
        },
        (err: unknown) => live && sink({ data: `\x1b[2m[${errorMessage(err)}]\x1b[0m\r\n`, ack: false }),
      );
      return () => {
        live = false;
        detach();
        terminalIo.forget(key(id));
        client.request('processes.watch', { id: null }).catch(() => undefined);
      };
    },

    processData(id, data, skipped) {
      if (skipped) terminalIo.push(key(id), { data: `\r\n\x1b[2m[… ${skipped} bytes not shown: the view fell behind; the full log is on disk …]\x1b[0m\r\n`, ack: false });
      // A log is plain output: newlines become line starts as a terminal expects.
      terminalIo.push(key(id), { data: data.replace(/\r?\n/g, '\r\n'), ack: true });
    },

    ackProcessLog(id, chars) {
      client.request('processes.ack', { id, chars }).catch(() => undefined);
    },
  };
};
