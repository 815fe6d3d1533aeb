// One ACP session: a Loupe chat session of one folder, seen from one editor. It keeps what ACP
// adds to the session — the mode its next prompt runs in, the client's paths for the folder, the
// order of everything sent to the client — and turns the session's chat events into updates, one
// at a time: a diff is read from the modification log before the next update goes, so the client
// sees every event in the order the runner emitted it.
import path from 'node:path';
import type { AgentContext, ClientCapabilities, SessionUpdate } from '@agentclientprotocol/sdk';
import type { ChatEvent, ChatMode, ChatTranscriptEntry } from '../../../shared/contract';
import { kindOf, type EditorBuffers } from '../../agent/tools/types';
import type { Logger } from '../../services/log/logger';
import type { AcpFolder } from './folders';
import { UpdateTranslator } from './updates';
import { namedModifications, readWrites, type Write } from './writes';

/** Live output is sent at most this often per call (a command can print thousands of lines a second). */
export const OUTPUT_EVERY_MS = 150;
/** How long Loupe waits for the editor's copy of a file before reading the disk. */
const BUFFER_READ_MS = 10_000;

const sameText = (a: string, b: string) => a.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n') === b.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');

export interface AcpSessionOptions {
  id: string;
  folder: AcpFolder;
  /** The session's folder as the client named it (absolute); the client's paths are built on it. */
  cwd: string;
  client: AgentContext;
  capabilities: ClientCapabilities;
  logger: Logger;
  mode?: ChatMode;
}

export class AcpSession {
  readonly id: string;
  readonly folder: AcpFolder;
  readonly cwd: string;
  mode: ChatMode;
  /** The model chosen for this session (session/set_config_option), instead of the settings'. */
  model?: string;
  /** The session's title as the client was last told it. */
  title?: string;
  /** A request of this session is under way (its status when it ends). */
  running: Promise<unknown> | null = null;
  /** What the last request said before it ended: its error, and how its last model call finished. */
  lastError: { code: string; message: string } | null = null;
  lastFinish: string | undefined;
  private chain: Promise<void> = Promise.resolve();
  private readonly translator: UpdateTranslator;
  private readonly outputTimers = new Map<string, NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly opts: AcpSessionOptions) {
    this.id = opts.id;
    this.folder = opts.folder;
    this.cwd = opts.cwd;
    this.mode = opts.mode ?? 'act';
    this.translator = new UpdateTranslator({
      clientPath: (rel) => this.clientPath(rel),
      tool: (name, args) => {
        const tools = this.folder.host.toolsFor(this.id);
        return { kind: kindOf(tools.facts(name)), paths: args === undefined ? [] : tools.workPaths(name, args) };
      },
      writes: async (data) => {
        const { ids, head } = namedModifications(data);
        return { writes: await readWrites(this.folder.services.modlog, ids), ...(head ? { head } : {}) };
      },
      notices: opts.capabilities.session?.notices != null,
    });
  }

  /** The client's absolute path for a workspace-relative one. */
  clientPath(rel: string): string {
    return rel ? path.join(this.cwd, rel) : this.cwd;
  }

  /** The workspace-relative path of a client path (its spelling, or the folder's real one); null outside. */
  relOf(clientAbs: string): string | null {
    for (const base of [this.cwd, this.folder.root]) {
      const rel = path.relative(base, path.resolve(clientAbs));
      if (rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))) return rel.split(path.sep).join('/');
    }
    return null;
  }

  /** Sends updates in order after everything queued before them. */
  send(...updates: SessionUpdate[]): Promise<void> {
    return this.enqueue(async () => {
      for (const update of updates) await this.notify(update);
    });
  }

  /** Resolves once everything queued so far has been sent. */
  drained(): Promise<void> {
    return this.chain;
  }

  private enqueue(work: () => Promise<void>): Promise<void> {
    this.chain = this.chain.then(work).catch((err: unknown) => this.opts.logger.warn('acp.update_failed', { session: this.id, error: err }));
    return this.chain;
  }

  private async notify(update: SessionUpdate): Promise<void> {
    if (this.closed) return;
    await this.opts.client.notify('session/update', { sessionId: this.id, update });
  }

  /** One live event of the session's runner. */
  event(e: ChatEvent): void {
    if (e.type === 'turn_completed') this.lastFinish = e.finish_reason;
    if (e.type === 'error' && e.code !== 'ABORTED') this.lastError = { code: e.code, message: e.message };
    if (e.type === 'tool_output') {
      void this.enqueue(async () => void (await this.translator.translate(e, false)));
      if (!this.outputTimers.has(e.call_id)) {
        this.outputTimers.set(
          e.call_id,
          setTimeout(() => {
            this.outputTimers.delete(e.call_id);
            void this.enqueue(async () => {
              const u = this.translator.output(e.call_id);
              if (u) await this.notify(u);
            });
          }, OUTPUT_EVERY_MS),
        );
      }
      return;
    }
    if (e.type === 'tool_call_finished') {
      clearTimeout(this.outputTimers.get(e.call_id));
      this.outputTimers.delete(e.call_id);
    }
    void this.enqueue(async () => {
      const t = await this.translator.translate(e, false);
      // The editor hears of a write before the call is shown done, so its buffer is fresh by then.
      await this.tellEditor(t.writes);
      for (const u of t.updates) await this.notify(u);
    });
  }

  /** The saved conversation, as updates (session/load), before the load is answered. */
  replay(entries: ChatTranscriptEntry[]): Promise<void> {
    return this.enqueue(async () => {
      for (const entry of entries) for (const u of (await this.translator.translate(entry, true)).updates) await this.notify(u);
    });
  }

  /** The editor's copy of files, when the client offers `fs/read_text_file`. */
  buffers(): EditorBuffers | undefined {
    if (!this.opts.capabilities.fs?.readTextFile) return undefined;
    return { read: (abs, signal) => this.readBuffer(abs, signal) };
  }

  private async readBuffer(abs: string, signal?: AbortSignal): Promise<string | null> {
    const rel = path.relative(this.folder.root, abs);
    if (rel.startsWith('..') || path.isAbsolute(rel)) return null;
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), BUFFER_READ_MS);
    const stop = () => ac.abort();
    signal?.addEventListener('abort', stop, { once: true });
    try {
      const res = await this.opts.client.request('fs/read_text_file', { sessionId: this.id, path: this.clientPath(rel.split(path.sep).join('/')) }, { cancellationSignal: ac.signal, stopWaitingOnCancel: true });
      return typeof res.content === 'string' ? res.content : null;
    } catch (err) {
      this.opts.logger.info('acp.buffer_unread', { session: this.id, file: rel, error: (err as Error).message });
      return null;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', stop);
    }
  }

  /**
   * Tells the editor what Loupe wrote (`fs/write_text_file`), when it offers that: only into a
   * buffer that still holds what was there before, so the person's unsaved changes are never
   * replaced (the editor then sees the disk change as it sees any other).
   */
  private async tellEditor(writes: Write[]): Promise<void> {
    if (!this.opts.capabilities.fs?.writeTextFile || this.closed) return;
    for (const w of writes) {
      if (w.opaque || w.after === null) continue;
      if (this.opts.capabilities.fs.readTextFile) {
        const held = await this.readBuffer(path.join(this.folder.root, w.file));
        if (held !== null && (sameText(held, w.after) || w.before === null || !sameText(held, w.before))) continue;
      }
      await this.opts.client.request('fs/write_text_file', { sessionId: this.id, path: this.clientPath(w.file), content: w.after }).catch((err: unknown) =>
        this.opts.logger.info('acp.buffer_unwritten', { session: this.id, file: w.file, error: (err as Error).message }),
      );
    }
  }

  /** No more updates are sent (the session was closed). */
  close(): void {
    this.closed = true;
    for (const t of this.outputTimers.values()) clearTimeout(t);
    this.outputTimers.clear();
  }
}
