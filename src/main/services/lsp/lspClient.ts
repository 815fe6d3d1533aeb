// One language server over LSP (docs/architecture.md, language servers): the initialize
// handshake, the documents Loupe holds open in it (whole-text sync), and the problems of a
// document's current version. How a server is asked depends on what it offers, most exact first:
// typescript-language-server's tsserver passthrough (`typescript.tsserverRequest`, the syntactic
// and semantic checks of that version, synchronously); LSP 3.17 pull diagnostics
// (`textDocument/diagnostic`, pyright); otherwise the pushed `publishDiagnostics` of that version
// (or, from a server that sends no versions, the first push after the change once it goes quiet).
import {
  CancellationTokenSource,
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type Diagnostic,
  type ProtocolConnection,
} from 'vscode-languageserver-protocol/node';
import type { Logger } from '../log/logger';
import { ServerGoneError } from './errors';
import { startServerProcess, type ServerProcess } from './serverProcess';
import { fileUri, type LspSettings, type ServerSpec } from './serverTable';
import type { Problem, Severity } from './types';

const TS_REQUEST = 'typescript.tsserverRequest';
/** A server that sends no versions: the pushes after a change are taken once none came for this long. */
const PUSH_QUIET_MS = 300;
const LOG_MESSAGES = 100;

interface OpenDoc {
  languageId: string;
  version: number;
  text: string;
  changedAt: number;
}

interface Pushed {
  version: number | null;
  at: number;
  problems: Problem[];
}

/** How long a server whose input closed gets to exit before it is reported as gone anyway. */
const PIPE_GRACE_MS = 2000;

/** A write to a process whose end of the pipe is closed. */
function brokenPipe(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'EPIPE' || code === 'ECONNRESET' || code === 'ERR_STREAM_DESTROYED' || code === 'ERR_STREAM_WRITE_AFTER_END') return true;
  return /\b(EPIPE|ECONNRESET)\b|write after end|stream was destroyed/i.test(err instanceof Error ? err.message : String(err));
}

const SEVERITIES: Record<number, Severity> = { 1: 'error', 2: 'warning', 3: 'info', 4: 'hint' };

export function fromLsp(d: Diagnostic, fallbackSource: string): Problem {
  return {
    line: d.range.start.line + 1,
    column: d.range.start.character + 1,
    endLine: d.range.end.line + 1,
    endColumn: d.range.end.character + 1,
    severity: SEVERITIES[d.severity ?? 1] ?? 'error',
    message: typeof d.message === 'string' ? d.message : d.message.value,
    source: d.source ?? fallbackSource,
    ...(d.code !== undefined ? { code: String(d.code) } : {}),
  };
}

interface TsDiagnostic {
  message: string;
  category: string;
  code?: number;
  startLocation?: { line: number; offset: number };
  endLocation?: { line: number; offset: number };
  start?: { line: number; offset: number } | number;
  end?: { line: number; offset: number } | number;
}

const TS_CATEGORY: Record<string, Severity> = { error: 'error', warning: 'warning', suggestion: 'hint', message: 'info' };

function fromTsserver(d: TsDiagnostic): Problem {
  const start = d.startLocation ?? (typeof d.start === 'object' ? d.start : { line: 1, offset: 1 });
  const end = d.endLocation ?? (typeof d.end === 'object' ? d.end : start);
  return {
    line: start.line,
    column: start.offset,
    endLine: end.line,
    endColumn: end.offset,
    severity: TS_CATEGORY[d.category] ?? 'error',
    message: d.message,
    source: 'typescript',
    ...(d.code !== undefined ? { code: String(d.code) } : {}),
  };
}

export interface ClientHooks {
  /** A push arrived (any document). */
  onPush(uri: string, problems: Problem[]): void;
  /** The process ended; `expected` when Loupe stopped it. */
  onExit(expected: boolean, why: string): void;
}

export class LspClient {
  private conn: ProtocolConnection | null = null;
  private readonly docs = new Map<string, OpenDoc>();
  private readonly pushed = new Map<string, Pushed>();
  private readonly pushWaiters = new Set<() => void>();
  private pullRegistered = false;
  private pullStatic = false;
  private tsserverRequests = false;
  private stopping = false;
  private exitWhy: string | null = null;
  private logMessages = 0;
  readonly proc: ServerProcess;
  /** The TypeScript the server reported using ($/typescriptVersion). */
  typescript: { version: string; source: string } | null = null;
  lastUsed = Date.now();
  /** Diagnoses under way: a server answering one is not idle, however long it takes. */
  busy = 0;

  constructor(
    readonly spec: ServerSpec,
    private readonly root: string,
    settings: LspSettings,
    private readonly logger: Logger,
    private readonly hooks: ClientHooks,
  ) {
    this.proc = startServerProcess(spec, root, settings, logger);
    const child = this.proc.child;
    child.once('close', (code, signal) => {
      this.exitWhy = signal ? `stopped by ${signal}` : `exited with code ${code}`;
      this.conn?.dispose();
      for (const w of this.pushWaiters) w();
      this.hooks.onExit(this.stopping, this.exitWhy);
    });
    child.once('error', (err) => {
      this.exitWhy = `could not start: ${err.message}`;
    });
  }

  get alive(): boolean {
    return this.exitWhy === null;
  }

  get pid(): number | undefined {
    return this.proc.child.pid;
  }

  /** Connects and runs the initialize handshake. */
  async initialize(signal: AbortSignal): Promise<void> {
    const child = this.proc.child;
    const conn = createProtocolConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
    this.conn = conn;
    // A closed pipe after the server died is the exit handler's business, not an uncaught error.
    child.stdin?.on('error', () => {});
    conn.onError(() => {});
    conn.onNotification('textDocument/publishDiagnostics', (p: { uri: string; version?: number; diagnostics: Diagnostic[] }) => {
      const problems = p.diagnostics.map((d) => fromLsp(d, this.spec.name));
      this.pushed.set(p.uri, { version: typeof p.version === 'number' ? p.version : null, at: Date.now(), problems });
      for (const w of this.pushWaiters) w();
      this.hooks.onPush(p.uri, problems);
    });
    conn.onNotification('$/typescriptVersion', (p: { version: string; source: string }) => {
      this.typescript = { version: p.version, source: p.source };
    });
    conn.onNotification('window/logMessage', (p: { type: number; message: string }) => {
      if (p.type > 2 || ++this.logMessages > LOG_MESSAGES) return;
      this.logger.info('lsp.message', { language: this.spec.key, server: this.spec.name, message: p.message.slice(0, 2000) });
    });
    conn.onRequest('workspace/configuration', (p: { items: { section?: string }[] }) => p.items.map((i) => (i.section ? (this.spec.settings?.[i.section] ?? null) : null)));
    conn.onRequest('client/registerCapability', (p: { registrations: { method: string }[] }) => {
      if (p.registrations.some((r) => r.method === 'textDocument/diagnostic')) {
        this.pullRegistered = true;
        for (const w of this.pushWaiters) w();
      }
      return null;
    });
    conn.onRequest('client/unregisterCapability', () => null);
    conn.onRequest('window/workDoneProgress/create', () => null);
    conn.onRequest('window/showMessageRequest', () => null);
    conn.onRequest('workspace/workspaceFolders', () => [{ uri: fileUri(this.root), name: this.root.split('/').pop() ?? 'workspace' }]);
    // A server never changes the workspace: every write is a modification Loupe makes itself.
    conn.onRequest('workspace/applyEdit', () => ({ applied: false, failureReason: 'Loupe does not let language servers edit files.' }));
    conn.onRequest('workspace/diagnostic/refresh', () => null);
    conn.listen();
    const cancel = new CancellationTokenSource();
    const onAbort = () => cancel.cancel();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const rootUri = fileUri(this.root);
      const result = (await this.guard(
        conn.sendRequest(
          'initialize',
          {
            // Servers exit when this pid dies; in the sandbox's PID namespace it does not exist
            // (and bubblewrap's --die-with-parent does that job there).
            processId: this.proc.sandboxed ? null : process.pid,
            clientInfo: { name: 'Loupe' },
            rootUri,
            rootPath: this.root,
            workspaceFolders: [{ uri: rootUri, name: this.root.split('/').pop() ?? 'workspace' }],
            capabilities: {
              textDocument: {
                synchronization: { dynamicRegistration: false, didSave: false, willSave: false },
                publishDiagnostics: { versionSupport: true, relatedInformation: false },
                diagnostic: { dynamicRegistration: true, relatedDocumentSupport: false },
              },
              workspace: { configuration: true, workspaceFolders: true, applyEdit: false },
              window: { workDoneProgress: false },
            },
            initializationOptions: this.spec.initializationOptions ?? null,
          },
          cancel.token,
        ),
        signal,
      )) as { capabilities?: { diagnosticProvider?: unknown; executeCommandProvider?: { commands?: string[] } } };
      this.pullStatic = !!result?.capabilities?.diagnosticProvider;
      this.tsserverRequests = !!result?.capabilities?.executeCommandProvider?.commands?.includes(TS_REQUEST);
      this.notify('initialized', {});
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Rejects as soon as the process is gone or `signal` ends the wait, instead of waiting on a
   * pipe nobody answers (a server may ignore the cancellation it is sent). A write that finds
   * the server's input closed means it is going: the answer is its exit, which says why
   * ("exited with code 1"), not the pipe's error.
   */
  private guard<T>(p: Promise<T>, signal?: AbortSignal): Promise<T> {
    if (!this.alive) return Promise.reject(new ServerGoneError(this.exitWhy ?? 'the server is not running'));
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<T>((resolve, reject) => {
      let grace: NodeJS.Timeout | undefined;
      const settle = (end: () => void) => {
        clearTimeout(grace);
        this.proc.child.off('close', onClose);
        signal?.removeEventListener('abort', onAbort);
        end();
      };
      const onClose = () => settle(() => reject(new ServerGoneError(`${this.spec.name} ${this.exitWhy ?? 'stopped'}`)));
      const onAbort = () => settle(() => reject(signal!.reason));
      this.proc.child.once('close', onClose);
      signal?.addEventListener('abort', onAbort, { once: true });
      p.then(
        (value) => settle(() => resolve(value)),
        (err: unknown) => {
          if (!brokenPipe(err) || !this.alive) return settle(() => reject(this.alive ? err : new ServerGoneError(`${this.spec.name} ${this.exitWhy}`)));
          grace = setTimeout(() => settle(() => reject(new ServerGoneError(`${this.spec.name} stopped reading its input`))), PIPE_GRACE_MS);
          grace.unref();
        },
      );
    });
  }

  /** The document's text in the server as `text` (opened if need be); returns its version. */
  sync(uri: string, languageId: string, text: string): number {
    this.lastUsed = Date.now();
    const conn = this.conn;
    if (!conn || !this.alive) throw new ServerGoneError(`${this.spec.name} is not running`);
    const doc = this.docs.get(uri);
    if (!doc) {
      this.docs.set(uri, { languageId, version: 1, text, changedAt: Date.now() });
      this.notify('textDocument/didOpen', { textDocument: { uri, languageId, version: 1, text } });
      return 1;
    }
    if (doc.text === text) return doc.version;
    doc.version++;
    doc.text = text;
    doc.changedAt = Date.now();
    this.notify('textDocument/didChange', { textDocument: { uri, version: doc.version }, contentChanges: [{ text }] });
    return doc.version;
  }

  /** A notification; one that cannot be written any more is the exit handler's business. */
  private notify(method: string, params?: unknown): void {
    if (!this.conn || !this.alive) return;
    this.conn.sendNotification(method, params).catch(() => {});
  }

  textOf(uri: string): string | undefined {
    return this.docs.get(uri)?.text;
  }

  openDocuments(): string[] {
    return [...this.docs.keys()];
  }

  close(uri: string): void {
    if (!this.docs.delete(uri)) return;
    this.pushed.delete(uri);
    this.notify('textDocument/didClose', { textDocument: { uri } });
  }

  /** The problems of the document's current version (it must be open). Aborted by `signal`. */
  async diagnose(uri: string, signal: AbortSignal): Promise<Problem[]> {
    this.lastUsed = Date.now();
    const conn = this.conn;
    const doc = this.docs.get(uri);
    if (!conn || !doc) throw new ServerGoneError(`${this.spec.name} is not running`);
    const cancel = new CancellationTokenSource();
    const onAbort = () => cancel.cancel();
    signal.addEventListener('abort', onAbort, { once: true });
    this.busy++;
    try {
      if (this.tsserverRequests) {
        const ask = async (command: string) => {
          const r = (await this.guard(conn.sendRequest('workspace/executeCommand', { command: TS_REQUEST, arguments: [command, { file: uri, includeLinePosition: true }] }, cancel.token), signal)) as {
            success?: boolean;
            body?: TsDiagnostic[];
            message?: string;
          } | null;
          if (!r?.success || !Array.isArray(r.body)) throw new ServerGoneError(`${this.spec.name} could not check the file${r?.message ? `: ${r.message}` : ''}`);
          return r.body.map(fromTsserver);
        };
        const [syntactic, semantic] = await Promise.all([ask('syntacticDiagnosticsSync'), ask('semanticDiagnosticsSync')]);
        return [...syntactic, ...semantic];
      }
      const pull = async () => {
        const r = (await this.guard(conn.sendRequest('textDocument/diagnostic', { textDocument: { uri } }, cancel.token), signal)) as { kind: string; items?: Diagnostic[] };
        return (r.items ?? []).map((d) => fromLsp(d, this.spec.name));
      };
      if (this.pullRegistered || this.pullStatic) return await pull();
      // A server may register pull diagnostics only after the handshake: then it pushes nothing.
      return (await this.awaitPush(uri, doc, signal)) ?? (await pull());
    } finally {
      this.busy--;
      this.lastUsed = Date.now();
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** The pushed problems of the document's version; null once the server registers pull diagnostics instead. */
  private awaitPush(uri: string, doc: OpenDoc, signal: AbortSignal): Promise<Problem[] | null> {
    return new Promise<Problem[] | null>((resolve, reject) => {
      let quiet: NodeJS.Timeout | null = null;
      const done = (f: () => void) => {
        this.pushWaiters.delete(check);
        signal.removeEventListener('abort', onAbort);
        if (quiet) clearTimeout(quiet);
        f();
      };
      const check = () => {
        if (!this.alive) return done(() => reject(new ServerGoneError(`${this.spec.name} ${this.exitWhy}`)));
        if (this.pullRegistered) return done(() => resolve(null));
        const p = this.pushed.get(uri);
        if (!p) return;
        if (p.version !== null) {
          if (p.version >= doc.version) done(() => resolve(p.problems));
          return;
        }
        if (p.at < doc.changedAt) return;
        if (quiet) clearTimeout(quiet);
        quiet = setTimeout(() => done(() => resolve(this.pushed.get(uri)?.problems ?? [])), PUSH_QUIET_MS);
      };
      const onAbort = () => done(() => reject(signal.reason));
      signal.addEventListener('abort', onAbort, { once: true });
      this.pushWaiters.add(check);
      check();
    });
  }

  /** Polite shutdown, then the process group goes. */
  async stop(): Promise<void> {
    this.stopping = true;
    const conn = this.conn;
    if (conn && this.alive) {
      const bye = AbortSignal.timeout(1000);
      await Promise.race([this.guard(conn.sendRequest('shutdown')).catch(() => {}), new Promise((r) => bye.addEventListener('abort', r, { once: true }))]);
      this.notify('exit');
    }
    await this.proc.kill();
  }
}
