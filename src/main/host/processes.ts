// The Processes pane's host side: the open workspace's background processes as a list that
// follows every change, and the log of the one a viewer watches, streamed with the terminal's
// flow control (the viewer acks what xterm has written). A process never waits for a viewer:
// its output is in the ring and the log already, so a viewer that falls behind is sent the
// newest bytes with a note of how many it skipped.
import { StringDecoder } from 'node:string_decoder';
import type { EventChannel, HostEvents, ProcessLogView, ProcessView } from '../../shared/contract';
import type { ProcessManager } from '../services/processes/processManager';
import { readRange } from '../services/processes/outputQuery';

/** What a viewer gets first: the newest bytes. */
const FIRST_BYTES = 256 * 1024;
/** Unacked characters past this pause the stream; under LOW it resumes. */
const HIGH_CHARS = 256 * 1024;
const LOW_CHARS = 64 * 1024;
/**
 * Output is sent at most this often, at most this much each time (~96 KB/s): a person cannot
 * read a flood, the page must stay responsive (xterm's DOM rows cost the page's main thread per
 * byte drawn), and every byte is in the log and process_output.
 */
const SEND_MS = 250;
const MAX_SEND_BYTES = 24 * 1024;
const LIST_MS = 100;

type Emit = <E extends EventChannel>(event: E, payload: HostEvents[E]) => void;

interface Watch {
  id: string;
  /** Byte offset sent up to. */
  sent: number;
  unacked: number;
  timer: NodeJS.Timeout | null;
  decoder: StringDecoder;
}

export class ProcessesHost {
  private manager: ProcessManager | null = null;
  private unsubscribe: (() => void) | null = null;
  private watch: Watch | null = null;
  private listTimer: NodeJS.Timeout | null = null;

  constructor(private readonly emit: Emit) {}

  /** Follows the open folder's processes (a new folder: its own). */
  attach(manager: ProcessManager): void {
    if (this.manager === manager) return;
    this.detach();
    this.manager = manager;
    this.unsubscribe = manager.subscribe({
      onChanged: () => this.listChanged(),
      onOutput: (id) => {
        if (this.watch?.id === id) this.schedule(this.watch);
      },
    });
    this.listChanged();
  }

  detach(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.manager = null;
    this.setWatch(null);
    if (this.listTimer) clearTimeout(this.listTimer);
    this.listTimer = null;
  }

  list(): ProcessView[] {
    return this.manager?.list() ?? [];
  }

  kill(id: string): Promise<ProcessView> {
    return this.need().kill(id, 'SIGTERM', 'stopped from the Processes pane');
  }

  /** A restart keeps the id; a viewer of it starts over at the new run's first byte. */
  async restart(id: string): Promise<ProcessView> {
    const view = await this.need().restart(id);
    if (this.watch?.id === id) this.setWatch({ id, sent: 0, unacked: 0, timer: null, decoder: new StringDecoder('utf8') });
    return view;
  }

  watchLog(id: string | null): ProcessLogView | null {
    if (id === null) return this.setWatch(null), null;
    const p = this.need().get(id);
    const to = p.bytes;
    const from = Math.max(p.ring.start, to - FIRST_BYTES);
    const decoder = new StringDecoder('utf8');
    const data = decoder.write(readRange(p, from, to).bytes);
    this.setWatch({ id, sent: to, unacked: 0, timer: null, decoder });
    return { id, data, from, to };
  }

  ack(id: string, chars: number): void {
    const w = this.watch;
    if (!w || w.id !== id || !Number.isFinite(chars)) return;
    const before = w.unacked;
    w.unacked = Math.max(0, w.unacked - chars);
    if (before >= HIGH_CHARS && w.unacked < LOW_CHARS) this.schedule(w);
  }

  private need(): ProcessManager {
    if (!this.manager) throw new Error('no workspace is open');
    return this.manager;
  }

  private setWatch(w: Watch | null): void {
    if (this.watch?.timer) clearTimeout(this.watch.timer);
    this.watch = w;
  }

  private listChanged(): void {
    if (this.listTimer) return;
    this.listTimer = setTimeout(() => {
      this.listTimer = null;
      this.emit('processes.changed', { processes: this.list() });
    }, LIST_MS);
  }

  private schedule(w: Watch): void {
    if (w.timer || w.unacked >= HIGH_CHARS) return;
    w.timer = setTimeout(() => {
      w.timer = null;
      this.send(w);
    }, SEND_MS);
  }

  private send(w: Watch): void {
    if (this.watch !== w || !this.manager) return;
    let p;
    try {
      p = this.manager.get(w.id);
    } catch {
      return;
    }
    const end = p.bytes;
    if (end <= w.sent) return;
    let skipped = 0;
    let from = w.sent;
    // Behind by more than the ring holds, or than one send draws: jump to the newest bytes.
    const floor = Math.max(p.ring.start, end - MAX_SEND_BYTES);
    if (from < floor) {
      skipped = floor - from;
      from = floor;
      w.decoder = new StringDecoder('utf8');
    }
    const data = w.decoder.write(readRange(p, from, end).bytes);
    w.sent = end;
    w.unacked += data.length;
    this.emit('processes.data', { id: w.id, data, offset: from, ...(skipped ? { skipped } : {}) });
    if (p.bytes > w.sent) this.schedule(w);
  }
}
