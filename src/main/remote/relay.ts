// The window of a remote workspace talks to this machine (docs/architecture.md, "Remote
// workspaces"): `loupe serve`'s HTTP and WebSocket server — same token, same Host/Origin checks,
// same built UI — where each WebSocket is relayed line for line to its own link to the host there.
// The session layer runs end to end between the window and that host; the relay only carries it,
// says how the link stands (`link` messages, `remote.status` events) and, while the link is down,
// makes it again and lets the window say hello anew. A few requests are answered here, because
// they are about this machine: the remote's status, Open Remote Folder, and the model settings
// (the key stays here; the host there gets it in memory).
import type { RemoteLinkState, RemoteStatusView, RequestChannel, WsServerMessage } from '../../shared/contract';
import { toWireError } from '../errors';
import { startServer, type RunningServer } from '../cli/serve/server';
import type { Wire } from '../transport/wire';
import type { RemoteSession } from './session';

/** Requests this machine answers for a remote window. */
export type LocalAnswers = Partial<Record<RequestChannel, (params: unknown) => Promise<unknown>>>;

const LOCAL_CHANNELS = new Set<string>(['remote.status', 'remote.hosts', 'remote.open', 'settings.get', 'settings.save', 'settings.models', 'settings.test']);
/** Bytes waiting for one side past which the other is not read. */
const BUDGET = 8 * 1024 * 1024;
const POLL_MS = 25;
const backoff = (n: number) => Math.min(5000, 250 * 2 ** Math.min(n, 5));

/** One window's WebSocket, carried to its own link to the host there. */
class WindowRelay {
  private far: Wire | null = null;
  private closed = false;
  private attempt = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly offStatus: () => void;

  constructor(
    private readonly window: Wire,
    private readonly session: RemoteSession,
    private readonly answers: LocalAnswers,
    private readonly onModelChange: (far: Wire) => void,
  ) {
    window.onMessage((text) => this.fromWindow(text));
    window.onClose(() => this.close());
    this.offStatus = session.onStatus((s) => this.sendStatus(s));
    this.sendStatus(session.status);
    void this.connect();
  }

  private send(msg: WsServerMessage): void {
    this.window.send(JSON.stringify(msg));
  }

  private sendStatus(s: RemoteStatusView): void {
    this.send({ t: 'evt', ch: 'remote.status', p: s });
  }

  private link(state: RemoteLinkState, message?: string): void {
    this.send({ t: 'link', state, ...(message ? { message } : {}) });
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    let far: Wire;
    try {
      far = await this.session.openWire();
    } catch (err) {
      if (this.closed) return;
      this.link(this.attempt >= 5 ? 'lost' : 'reconnecting', (err as Error).message);
      this.timer = setTimeout(() => void this.connect(), backoff(this.attempt++));
      return;
    }
    if (this.closed) {
      far.terminate();
      return;
    }
    this.attempt = 0;
    this.far = far;
    far.onMessage((text) => {
      this.window.send(text);
      this.hold(this.window, far);
    });
    far.onClose(() => {
      if (this.far !== far) return;
      this.far = null;
      if (this.closed) return;
      this.link('reconnecting', 'the link to the remote host dropped');
      this.timer = setTimeout(() => void this.connect(), backoff(this.attempt++));
    });
    this.link('connected');
  }

  /** Flow control across the relay: while `to` has too much waiting, `from` is not read. */
  private hold(to: Wire, from: Wire): void {
    if (to.bufferedBytes() <= BUDGET) return;
    from.pause();
    const poll = () => {
      if (!to.isOpen() || !from.isOpen() || to.bufferedBytes() <= BUDGET) from.resume();
      else setTimeout(poll, POLL_MS);
    };
    setTimeout(poll, POLL_MS);
  }

  private fromWindow(text: string): void {
    let msg: { t?: unknown; id?: unknown; ch?: unknown; p?: unknown } | null = null;
    // Only requests for this machine are read; everything else is carried as it is.
    if (text.startsWith('{"t":"req"')) {
      try {
        msg = JSON.parse(text);
      } catch {
        msg = null;
      }
    }
    if (msg && typeof msg.ch === 'string' && LOCAL_CHANNELS.has(msg.ch) && typeof msg.id === 'number') {
      void this.answer(msg.id, msg.ch as RequestChannel, msg.p);
      return;
    }
    const far = this.far;
    if (!far) return; // the window sends it again after the next welcome
    far.send(text.includes('\n') ? JSON.stringify(JSON.parse(text)) : text);
    this.hold(far, this.window);
  }

  private async answer(id: number, ch: RequestChannel, p: unknown): Promise<void> {
    try {
      const handler = this.answers[ch];
      const r = ch === 'remote.status' ? this.session.status : handler ? await handler(p) : null;
      this.send({ t: 'res', id, ok: true, r: r ?? null });
      if (ch === 'settings.save' && this.far) this.onModelChange(this.far);
    } catch (err) {
      this.send({ t: 'res', id, ok: false, e: toWireError(err) });
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.offStatus();
    if (this.timer) clearTimeout(this.timer);
    // The host there keeps this window's session (its turns too) for when it comes back.
    this.far?.terminate();
    this.window.terminate();
  }
}

export interface RelayServer extends RunningServer {
  /** Windows connected now. */
  windows(): number;
}

export async function startRelay(session: RemoteSession, opts: { staticDir: string; port?: number; answers: LocalAnswers }): Promise<RelayServer> {
  const relays = new Set<WindowRelay>();
  const pushModel = (far: Wire) =>
    void session.modelSpec().then(
      (model) => model && far.send(JSON.stringify({ t: 'model', model })),
      () => undefined,
    );
  const server = await startServer({
    staticDir: opts.staticDir,
    port: opts.port ?? 0,
    accept: (wire) => {
      const r = new WindowRelay(wire, session, opts.answers, pushModel);
      relays.add(r);
      wire.onClose(() => relays.delete(r));
    },
  });
  return {
    ...server,
    windows: () => relays.size,
    async close() {
      for (const r of relays) r.close();
      await server.close();
    },
  };
}
