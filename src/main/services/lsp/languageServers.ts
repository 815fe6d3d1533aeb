// The language servers of one workspace (docs/architecture.md, language servers): at most one
// per language, started on the first file of that language, restarted with backoff when one
// dies, stopped after 10 idle minutes or when its memory passes the bound, all stopped with the
// workspace. Callers hand it texts (the file before and after a write, the file as it is now) and
// get problems back; it never reads or writes the workspace itself.
import path from 'node:path';
import type { Logger } from '../log/logger';
import { compareProblems } from './introduced';
import { ServerGoneError } from './errors';
import type { LspClient } from './lspClient';
import { fileUri, groupOf, isNoServer, specFor, type LspSettings, type ServerSpec } from './serverTable';
import type { LateProblems, Problem, ServerState, ServerStatus, WriteProblems } from './types';

export const DEFAULT_WAIT_MS = 3000;
const IDLE_MS = 10 * 60_000;
const MEMORY_MB = 3072;
const START_TIMEOUT_MS = 120_000;
const WATCH_MS = 30_000;
/** Restart delays after a crash: 1 s, 2 s, 4 s… at most 30 s; after 5 crashes in 5 minutes it waits for the next use a minute on. */
const BACKOFF_MAX_MS = 30_000;
const CRASH_WINDOW_MS = 5 * 60_000;
const MAX_CRASHES = 5;
const FAILED_RETRY_MS = 60_000;
/** Asked for by a person (the viewer) or the diagnostics tool: a cold server may take this long. */
const LOOK_WAIT_MS = 15_000;
/** A write's problems that missed the bound are still waited for this long (a cold server loading a big project). */
export const LATE_WAIT_MS = 300_000;

export interface LanguageServersOptions {
  root: string;
  logger: Logger;
  /** Read on every use: `"lsp": false`, trust, the sandbox and the config's commands apply at once. */
  settings(): Promise<LspSettings>;
  /** How long a write waits for its problems (`limits.diagnostics_wait_ms`); default 3 s. */
  waitMs?(): Promise<number>;
  idleMs?: number;
  memoryMb?: number;
  /** How often idle and memory are checked (default 30 s). */
  watchMs?: number;
}

interface Slot {
  key: string;
  spec: ServerSpec | null;
  fingerprint: string;
  client: LspClient | null;
  ready: Promise<LspClient> | null;
  state: ServerState;
  message?: string;
  sandboxed: boolean;
  crashes: number[];
  restartTimer: NodeJS.Timeout | null;
  retryAt: number;
}

interface Target {
  slot: Slot;
  spec: ServerSpec;
  settings: LspSettings;
  uri: string;
  languageId: string;
}

export interface FileProblems {
  file: string;
  server: string;
  problems: Problem[];
}

/**
 * A wait bounded by `ms` and the caller's signal. Not AbortSignal.any over AbortSignal.timeout:
 * Node 20 holds those sources weakly, and a collected timeout never fires (a look then waited for
 * the 120 s start bound instead of its 15 s). Here the timer holds the controller.
 */
function deadline(ms: number, signal?: AbortSignal, opts: { unref?: boolean } = {}): { signal: AbortSignal; done(): void; abort(): void } {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(new DOMException(`timed out after ${ms} ms`, 'TimeoutError')), ms);
  if (opts.unref) timer.unref();
  const onAbort = () => ctl.abort(signal?.reason);
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  const done = () => {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  };
  return {
    signal: ctl.signal,
    done,
    abort: () => {
      done();
      ctl.abort(new DOMException('the write was abandoned', 'AbortError'));
    },
  };
}

/** `work`'s answer, or the signal's reason once it aborts first (the work goes on). */
function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

const why = (err: unknown): string => (err instanceof ServerGoneError ? err.why : err instanceof Error ? (err.name === 'TimeoutError' || err.name === 'AbortError' ? 'timed out' : err.message) : String(err));
/** Hints (unused names, suggestions) are editor decorations, not problems to report. */
const shown = (list: Problem[]) => list.filter((p) => p.severity !== 'hint');

export class LanguageServers {
  private readonly slots = new Map<string, Slot>();
  /** What each document holds, by uri: re-opened as it was after a restart. */
  private readonly docs = new Map<string, { languageId: string; text: string; key: string; rel: string }>();
  /** Problems computed for a document's exact text: the next write's "before" is often the last one's "after". */
  private readonly computed = new Map<string, { text: string; problems: Problem[] }>();
  /** The latest problems known per file (computed or pushed), for the viewer and the workspace-wide tool. */
  private readonly latest = new Map<string, FileProblems>();
  private readonly statusListeners = new Set<(s: ServerStatus[]) => void>();
  private readonly problemListeners = new Set<(p: FileProblems) => void>();
  /** Each document's writes, one after another: a late answer's syncs never interleave with the next write's. */
  private readonly turns = new Map<string, Promise<unknown>>();
  private readonly watch: NodeJS.Timeout;
  private disposed = false;
  /** How many server processes this workspace started (a test of `"lsp": false` reads it). */
  started = 0;

  constructor(private readonly opts: LanguageServersOptions) {
    this.watch = setInterval(() => void this.housekeeping(), opts.watchMs ?? WATCH_MS);
    this.watch.unref();
  }

  private get root(): string {
    return this.opts.root;
  }

  // ---- what callers use --------------------------------------------------------------------

  /**
   * The problems a write would introduce: the server is told the new text (an unsaved document
   * until the write lands) and asked for its problems, which are compared with the file's before.
   * null when no server serves the file (or they are off); `available: false` when the server could
   * not say within the bound. The document keeps the new text: `settle` puts it back if the write
   * does not happen. When the bound ran out while the server was still working (a cold server
   * loading the project), it goes on, for up to `LATE_WAIT_MS`, and `late` holds its answer.
   */
  async preview(rel: string, before: string | null, after: string | null, signal?: AbortSignal): Promise<(WriteProblems & { late?: LateProblems }) | null> {
    const target = await this.target(rel);
    if (!target) return null;
    if (after === null) {
      this.forget(target);
      return null;
    }
    const waitMs = await this.waitMs();
    // The work's own end: the write was abandoned, or it took longer than anyone would wait.
    // Nothing waits for a late answer to end the process (`loupe run` exits after its reply).
    const job = deadline(Math.max(LATE_WAIT_MS, waitMs), undefined, { unref: true });
    const work = this.inTurn(target.uri, async (): Promise<WriteProblems> => {
      const client = await this.client(target, job.signal);
      const baseline = before === null ? [] : await this.problemsFor(client, target, before, job.signal);
      const now = await this.problemsFor(client, target, after, job.signal);
      const { introduced, resolved } = compareProblems(baseline, now, before ?? '', after);
      return { available: true, introduced, resolved, server: target.spec.name };
    });
    const bound = deadline(waitMs, signal);
    try {
      const done = await raceAbort(work, bound.signal);
      job.done();
      return done;
    } catch (err) {
      if (signal?.aborted) {
        job.abort();
        throw signal.reason;
      }
      const reason = this.unavailable(target, err);
      this.opts.logger.info('lsp.unavailable', { language: target.spec.key, file: rel, reason });
      const gone = { available: false, introduced: [], resolved: 0, reason, server: target.spec.name };
      // The server failed (crashed, refused): nothing more will come.
      if (!bound.signal.aborted || job.signal.aborted) {
        job.abort();
        return gone;
      }
      const result = work.then(
        (late) => {
          this.opts.logger.info('lsp.late', { language: target.spec.key, file: rel, introduced: late.introduced.length });
          return late;
        },
        (error: unknown) => {
          if (!job.signal.aborted || job.signal.reason?.name === 'TimeoutError') this.opts.logger.info('lsp.unavailable', { language: target.spec.key, file: rel, reason: why(error), late: true });
          return null;
        },
      );
      void result.finally(() => job.done());
      return { ...gone, late: { result, cancel: () => job.abort() } };
    } finally {
      bound.done();
    }
  }

  /** The document holds `text` now (the write landed, or did not); nothing waits. null: the file is gone. */
  settle(rel: string, text: string | null): void {
    void this.target(rel).then((t) => {
      if (!t) return;
      // After the document's pending work (a write's late answer, cancelled by now), never before it.
      void this.inTurn(t.uri, async () => {
        if (text === null) return this.forget(t);
        this.docs.set(t.uri, { languageId: t.languageId, text, key: t.spec.key, rel });
        if (t.slot.client?.alive && t.slot.state === 'ready') t.slot.client.sync(t.uri, t.languageId, text);
      });
    });
  }

  /** A file was read: its server starts (and the document opens) so the first write finds it warm. */
  warm(rel: string, text: string): void {
    void this.target(rel).then(async (t) => {
      if (!t) return;
      this.docs.set(t.uri, { languageId: t.languageId, text, key: t.spec.key, rel });
      const client = await this.client(t, AbortSignal.timeout(START_TIMEOUT_MS)).catch(() => null);
      if (client?.alive && client.textOf(t.uri) !== text && this.docs.get(t.uri)?.text === text) client.sync(t.uri, t.languageId, text);
    });
  }

  /** The problems of a file holding `text` (the viewer, the diagnostics tool); null when no server serves it. */
  async problemsOf(rel: string, text: string, signal?: AbortSignal): Promise<{ server: string; problems: Problem[] } | { server: string; unavailable: string } | null> {
    const target = await this.target(rel);
    if (!target) return null;
    // A look waits at least as long as a write would (limits.diagnostics_wait_ms), and never less than 15 s.
    const bound = deadline(Math.max(LOOK_WAIT_MS, await this.waitMs()), signal);
    const wait = bound.signal;
    try {
      const client = await this.client(target, wait);
      return { server: target.spec.name, problems: await this.problemsFor(client, target, text, wait) };
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      return { server: target.spec.name, unavailable: this.unavailable(target, err) };
    } finally {
      bound.done();
    }
  }

  /** Every file's latest known problems (computed for a write or a look, or pushed by a server). */
  known(): FileProblems[] {
    return [...this.latest.values()];
  }

  /** Whether a server would serve this file (the language is known and servers are on). */
  async serves(rel: string): Promise<boolean> {
    return (await this.target(rel)) !== null;
  }

  status(): ServerStatus[] {
    return [...this.slots.values()].filter((s) => s.spec).map((s) => this.statusOf(s));
  }

  onStatus(listener: (s: ServerStatus[]) => void): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  onProblems(listener: (p: FileProblems) => void): () => void {
    this.problemListeners.add(listener);
    return () => this.problemListeners.delete(listener);
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    clearInterval(this.watch);
    this.statusListeners.clear();
    this.problemListeners.clear();
    await Promise.all([...this.slots.values()].map((s) => this.stop(s, 'the workspace closed')));
  }

  // ---- servers -----------------------------------------------------------------------------

  private async waitMs(): Promise<number> {
    return (await this.opts.waitMs?.()) ?? DEFAULT_WAIT_MS;
  }

  /** The server for `rel` as the settings say now; a server whose settings changed is stopped. */
  private async target(rel: string): Promise<Target | null> {
    if (this.disposed) return null;
    const settings = await this.opts.settings();
    if (!settings.enabled) {
      for (const s of this.slots.values()) if (s.client) void this.stop(s, 'language servers are off ("lsp": false)');
      return null;
    }
    const group = groupOf(rel, settings.configured);
    if (!group) return null;
    if (settings.off.includes(group.key)) {
      const off = this.slots.get(group.key);
      if (off?.client) void this.stop(off, `${group.key} is off in .loupe/config.json`);
      return null;
    }
    const found = specFor(group.key, this.root, settings, this.opts.memoryMb ?? MEMORY_MB);
    let slot = this.slots.get(group.key);
    if (!slot) {
      slot = { key: group.key, spec: null, fingerprint: '', client: null, ready: null, state: 'stopped', sandboxed: false, crashes: [], restartTimer: null, retryAt: 0 };
      this.slots.set(group.key, slot);
    }
    if (!found || isNoServer(found)) {
      if (slot.client) void this.stop(slot, found ? found.reason : 'no server serves this language');
      if (found && (slot.state !== 'failed' || slot.message !== found.reason)) {
        slot.spec = { key: group.key, name: group.key, argv: [], node: false, source: 'bundled' };
        this.setState(slot, 'failed', found.reason);
      }
      return null;
    }
    const fingerprint = JSON.stringify([found.argv, found.initializationOptions, settings.sandboxed, settings.denyRead]);
    if (slot.fingerprint !== fingerprint) {
      if (slot.client) await this.stop(slot, 'its settings changed');
      slot.fingerprint = fingerprint;
      slot.crashes = [];
      slot.retryAt = 0;
    }
    slot.spec = found;
    return { slot, spec: found, settings, uri: fileUri(path.join(this.root, rel)), languageId: group.languageId };
  }

  /** The running client, starting it if need be; rejects when `signal` ends the wait first. */
  private async client(t: Target, signal: AbortSignal): Promise<LspClient> {
    const slot = t.slot;
    if (slot.client?.alive && slot.state === 'ready') return slot.client;
    if (!slot.ready) {
      if (slot.state === 'failed' && Date.now() < slot.retryAt) throw new ServerGoneError(slot.message ?? `${t.spec.name} failed`);
      if (slot.restartTimer) {
        clearTimeout(slot.restartTimer);
        slot.restartTimer = null;
      }
      slot.ready = this.start(slot, t.spec, t.settings);
    }
    const ready = slot.ready;
    return await new Promise<LspClient>((resolve, reject) => {
      const onAbort = () => reject(new ServerGoneError(`${t.spec.name} is still starting`));
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      ready.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  private async start(slot: Slot, spec: ServerSpec, settings: LspSettings): Promise<LspClient> {
    // The protocol library is loaded with the first server: most workspace opens start none.
    const { LspClient } = await import('./lspClient');
    if (this.disposed) throw new ServerGoneError('the workspace closed');
    this.started++;
    const client = new LspClient(spec, this.root, settings, this.opts.logger, {
      onPush: (uri, problems) => this.pushed(slot, uri, problems),
      onExit: (expected, reason) => this.exited(slot, client, expected, reason),
    });
    slot.client = client;
    slot.sandboxed = settings.sandboxed;
    this.setState(slot, 'starting');
    this.opts.logger.info('lsp.start', { language: spec.key, server: spec.name, pid: client.pid, sandboxed: settings.sandboxed, typescript: spec.typescript });
    try {
      await client.initialize(AbortSignal.timeout(START_TIMEOUT_MS));
      for (const [uri, doc] of this.docs) if (doc.key === spec.key) client.sync(uri, doc.languageId, doc.text);
      if (slot.client === client) this.setState(slot, 'ready');
      return client;
    } catch (err) {
      const reason = `${spec.name} did not start: ${why(err)}`;
      if (slot.client === client) {
        slot.retryAt = Date.now() + FAILED_RETRY_MS;
        this.setState(slot, 'failed', reason);
        slot.client = null;
      }
      void client.stop();
      throw new ServerGoneError(reason);
    } finally {
      if (slot.client === client || slot.client === null) slot.ready = null;
    }
  }

  private exited(slot: Slot, client: LspClient, expected: boolean, reason: string): void {
    if (slot.client !== client) return;
    slot.client = null;
    slot.ready = null;
    if (expected || this.disposed) return;
    const now = Date.now();
    slot.crashes = [...slot.crashes.filter((t) => now - t < CRASH_WINDOW_MS), now];
    this.opts.logger.warn('lsp.exit', { language: slot.key, server: client.spec.name, reason, crashes: slot.crashes.length });
    if (slot.crashes.length > MAX_CRASHES) {
      slot.retryAt = now + FAILED_RETRY_MS;
      this.setState(slot, 'failed', `${client.spec.name} ${reason}, ${slot.crashes.length} times in 5 minutes; it is tried again on the next use after a minute`);
      return;
    }
    const delay = Math.min(BACKOFF_MAX_MS, 1000 * 2 ** (slot.crashes.length - 1));
    this.setState(slot, 'restarting', `${client.spec.name} ${reason}; restarting in ${Math.round(delay / 1000)} s`);
    slot.restartTimer = setTimeout(() => {
      slot.restartTimer = null;
      if (this.disposed || slot.client || slot.ready || !slot.spec) return;
      const spec = slot.spec;
      void this.opts.settings().then((settings) => {
        if (!settings.enabled || slot.client || slot.ready || this.disposed) return;
        slot.ready = this.start(slot, spec, settings);
        slot.ready.catch(() => {});
      });
    }, delay);
    slot.restartTimer.unref();
  }

  private async stop(slot: Slot, reason: string): Promise<void> {
    if (slot.restartTimer) clearTimeout(slot.restartTimer);
    slot.restartTimer = null;
    const client = slot.client;
    slot.client = null;
    slot.ready = null;
    if (!client) return;
    this.setState(slot, 'stopped', reason);
    this.opts.logger.info('lsp.stop', { language: slot.key, server: client.spec.name, reason });
    await client.stop();
  }

  /** Idle servers stop; one whose processes hold more memory than the bound is stopped (it starts again on the next use). */
  private async housekeeping(): Promise<void> {
    const idle = this.opts.idleMs ?? IDLE_MS;
    const bound = ((this.opts.memoryMb ?? MEMORY_MB) + 1024) * 1024 * 1024;
    for (const slot of this.slots.values()) {
      const c = slot.client;
      if (!c || slot.state !== 'ready') continue;
      if (c.busy === 0 && Date.now() - c.lastUsed > idle) await this.stop(slot, `idle for ${Math.round(idle / 60_000)} minutes`);
      else {
        const rss = c.proc.memory();
        if (rss > bound) {
          this.opts.logger.warn('lsp.memory', { language: slot.key, server: c.spec.name, rss_mb: Math.round(rss / 1048576) });
          await this.stop(slot, `it used ${Math.round(rss / 1048576)} MB, over the bound`);
        }
      }
    }
  }

  // ---- documents and problems ---------------------------------------------------------------

  private async problemsFor(client: LspClient, t: Target, text: string, signal: AbortSignal): Promise<Problem[]> {
    // An abandoned write's work stops before it tells the server anything more.
    signal.throwIfAborted();
    this.docs.set(t.uri, { languageId: t.languageId, text, key: t.spec.key, rel: this.relOf(t.uri) });
    client.sync(t.uri, t.languageId, text);
    const cached = this.computed.get(t.uri);
    if (cached?.text === text) return cached.problems;
    const problems = shown(await client.diagnose(t.uri, signal));
    // The document may have moved on while the server answered (a look racing a write).
    if (client.textOf(t.uri) === text) {
      this.computed.set(t.uri, { text, problems });
      this.publish({ file: this.relOf(t.uri), server: t.spec.name, problems });
    }
    return problems;
  }

  /** Runs `fn` after the document's earlier work (whatever its outcome). */
  private inTurn<T>(uri: string, fn: () => Promise<T>): Promise<T> {
    const run = (this.turns.get(uri) ?? Promise.resolve()).then(fn, fn);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.turns.set(uri, settled);
    void settled.then(() => {
      if (this.turns.get(uri) === settled) this.turns.delete(uri);
    });
    return run;
  }

  private pushed(slot: Slot, uri: string, problems: Problem[]): void {
    const doc = this.docs.get(uri);
    const rel = doc?.rel ?? this.relOf(uri);
    if (!rel) return;
    this.computed.delete(uri);
    this.publish({ file: rel, server: slot.spec?.name ?? slot.key, problems: shown(problems) });
  }

  private publish(p: FileProblems): void {
    if (!p.file) return;
    this.latest.set(p.file, p);
    this.tell(this.problemListeners, p);
  }

  /** A listener that throws is logged; the others still hear. */
  private tell<T>(listeners: Set<(v: T) => void>, value: T): void {
    for (const l of listeners) {
      try {
        l(value);
      } catch (error) {
        this.opts.logger.error('lsp.listener_failed', { error });
      }
    }
  }

  private forget(t: Target): void {
    this.docs.delete(t.uri);
    this.computed.delete(t.uri);
    t.slot.client?.close(t.uri);
    const rel = this.relOf(t.uri);
    if (this.latest.delete(rel)) this.publish({ file: rel, server: t.spec.name, problems: [] });
  }

  private relOf(uri: string): string {
    const prefix = fileUri(this.root) + '/';
    if (!uri.startsWith(prefix)) return '';
    return uri.slice(prefix.length).split('/').map(decodeURIComponent).join('/');
  }

  private unavailable(t: Target, err: unknown): string {
    if (t.slot.state === 'starting') return `${t.spec.name} is still starting`;
    return why(err);
  }

  // ---- status ------------------------------------------------------------------------------

  private setState(slot: Slot, state: ServerState, message?: string): void {
    slot.state = state;
    slot.message = message;
    this.tell(this.statusListeners, this.status());
  }

  private statusOf(s: Slot): ServerStatus {
    const c = s.client;
    return {
      language: s.key,
      server: s.spec?.name ?? s.key,
      state: s.state,
      sandboxed: s.sandboxed,
      ...(c?.pid ? { pid: c.pid } : {}),
      ...(c?.typescript ? { typescript: c.typescript } : s.spec?.typescript ? { typescript: { version: '', source: s.spec.typescript.source } } : {}),
      ...(s.message ? { message: s.message } : {}),
    };
  }
}
