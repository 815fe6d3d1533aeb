/** One piece of terminal output. `ack` is false for lines the UI adds itself (exit notices). */
export interface TerminalChunk {
  data: string;
  ack: boolean;
}

export type TerminalSink = (chunk: TerminalChunk) => void;

// Output for a terminal no tab shows (another window's, say) must not grow without bound.
const MAX_BACKLOG_CHARS = 1_000_000;

/**
 * Routes terminal output from host events straight to the xterm instances, outside React
 * state: output can arrive thousands of times a second and must not re-render anything.
 * Output that arrives before a tab's xterm exists (the shell prompt usually does) waits here.
 */
export class TerminalIo {
  private readonly sinks = new Map<string, TerminalSink>();
  private readonly backlog = new Map<string, { chunks: TerminalChunk[]; chars: number }>();

  push(id: string, chunk: TerminalChunk): void {
    const sink = this.sinks.get(id);
    if (sink) {
      sink(chunk);
      return;
    }
    let queue = this.backlog.get(id);
    if (!queue) {
      queue = { chunks: [], chars: 0 };
      this.backlog.set(id, queue);
    }
    queue.chunks.push(chunk);
    queue.chars += chunk.data.length;
    while (queue.chars > MAX_BACKLOG_CHARS && queue.chunks.length > 1) {
      queue.chars -= queue.chunks.shift()!.data.length;
    }
  }

  attach(id: string, sink: TerminalSink): () => void {
    this.sinks.set(id, sink);
    const queued = this.backlog.get(id);
    if (queued) {
      this.backlog.delete(id);
      for (const chunk of queued.chunks) sink(chunk);
    }
    return () => {
      if (this.sinks.get(id) === sink) this.sinks.delete(id);
    };
  }

  forget(id: string): void {
    this.sinks.delete(id);
    this.backlog.delete(id);
  }
}
