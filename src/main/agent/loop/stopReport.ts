// What a stopped request says it kept, cancelled and left unrun, so the person knows what state
// the work is in: the text that had streamed stays, a running command is killed, a call the
// model was still writing never runs.
import type { ToolResult } from '../tools/types';

const MAX_LABEL = 80;
const label = (s: string) => (s.length > MAX_LABEL ? `${s.slice(0, MAX_LABEL - 1)}…` : s);
const list = (xs: string[]) => xs.map((x) => `\`${label(x)}\``).join(', ');

export class StopReport {
  private stream: { chars: number } | null = null;
  /** Tool calls the model began writing in the current answer. */
  private writing: string[] = [];
  private readonly calls = new Map<string, { label: string; state: 'running' | 'not_run' | 'finished' | 'cancelled' }>();

  /** A model answer starts (or starts again after a retry). */
  streaming(): void {
    this.writing = [];
    this.calls.clear();
  }

  callStreaming(tool: string): void {
    this.writing.push(tool);
  }

  /** The stop came while the answer streamed, after `chars` characters of text. */
  streamStopped(chars: number): void {
    this.stream = { chars };
  }

  callStarted(id: string, what: string, alreadyStopped: boolean): void {
    this.calls.set(id, { label: what, state: alreadyStopped ? 'not_run' : 'running' });
  }

  callFinished(id: string, result: ToolResult, stopped: boolean): void {
    const c = this.calls.get(id);
    if (!c || c.state === 'not_run') return;
    if (!stopped) this.calls.delete(id);
    else c.state = result.ok ? 'finished' : 'cancelled';
  }

  describe(): string {
    const out = ['Stopped by the user.'];
    if (this.stream) {
      out.push(this.stream.chars ? `The answer so far (${this.stream.chars} characters) is kept.` : 'The model had not written any text yet.');
      if (this.writing.length) out.push(`The ${list(this.writing)} call it was still writing was not run.`);
    }
    const of = (state: string) => [...this.calls.values()].filter((c) => c.state === state).map((c) => c.label);
    if (of('cancelled').length) out.push(`Cancelled: ${list(of('cancelled'))} (a command and what it started are stopped; a write lands whole or not at all).`);
    if (of('finished').length) out.push(`Finished before it could be stopped: ${list(of('finished'))}.`);
    if (of('not_run').length) out.push(`Not run: ${list(of('not_run'))}.`);
    return out.join(' ');
  }
}
