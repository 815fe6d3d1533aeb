// One remote workspace as this machine holds it (docs/architecture.md, "Remote workspaces"): the
// way there (ssh or a container), this version's host installed and running there, the model
// reachable from there, and the ports of its processes reachable here. Windows and `loupe run
// --remote` each open their own links through `openWire`; the session keeps one of its own (the
// control link) to follow processes, forward their ports and report the sandbox. When the way
// drops, every link is made again through it (`connect` brings the ssh master back), forwards
// included; the host there never noticed.
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import type { ProcessView, RemoteStatusView } from '../../shared/contract';
import { LoupeError } from '../errors';
import { nullLogger, type Logger } from '../services/log/logger';
import { HostLink } from '../transport/hostLink';
import { lineWire } from '../transport/lineWire';
import type { Wire } from '../transport/wire';
import { bundleArchive, listBundle, nodeArchive } from './bundle';
import type { DaemonReply } from './daemon';
import type { RemoteEnd } from './end';
import { install, nodeFor, versionDir } from './install';
import { bundleVersion, type BundleManifest } from './layout';
import type { ModelSpec } from './modelRoute';
import { checkFit, parseProbe, PROBE_SCRIPT, type RemoteFacts } from './probe';
import { shellWord } from './ssh';
import { formatTarget, type RemoteTarget } from './target';

export interface RemoteSessionOptions {
  target: RemoteTarget;
  end: RemoteEnd;
  /** This machine's Loupe: the checkout whose build is copied there. */
  bundleDir: string;
  /** Where built archives are kept between sessions. */
  cacheDir: string;
  /** This machine's model settings, as the host there gets them (in memory). */
  model: () => Promise<ModelSpec | null>;
  /** The folder there (a container's workspace folder); the target's path otherwise. */
  remotePath?: string;
  /** Ports there forwarded from the start (a dev container's `forwardPorts`). */
  fixedPorts?: number[];
  logger?: Logger;
}

const ATTACH_TIMEOUT_MS = 120_000;

/**
 * A Wire that hears only what comes after the first message, which `first` receives. What
 * arrives before anyone listens (the host's `ready` comes right behind its answer) is kept for
 * the first listener.
 */
function afterFirst(wire: Wire): { wire: Wire; first: Promise<string> } {
  const listeners: ((text: string) => void)[] = [];
  const early: string[] = [];
  let resolveFirst!: (text: string) => void;
  let rejectFirst!: (err: Error) => void;
  const first = new Promise<string>((res, rej) => {
    resolveFirst = res;
    rejectFirst = rej;
  });
  let got = false;
  wire.onMessage((text) => {
    if (!got) {
      got = true;
      resolveFirst(text);
      return;
    }
    if (!listeners.length) early.push(text);
    for (const l of listeners) l(text);
  });
  wire.onClose(() => rejectFirst(new Error('the link closed before the host answered')));
  const onMessage = (l: (text: string) => void): void => {
    listeners.push(l);
    for (const text of early.splice(0)) l(text);
  };
  return { wire: { ...wire, onMessage }, first };
}

/** A port of this machine's loopback that is free now (the same number when it is). */
export function freeLocalPort(preferred: number): Promise<number> {
  const tryPort = (port: number) =>
    new Promise<number | null>((resolve) => {
      const s = net.createServer();
      s.once('error', () => resolve(null));
      s.listen(port, '127.0.0.1', () => {
        const got = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(got));
      });
    });
  return tryPort(preferred).then((p) => p ?? tryPort(0).then((q) => q ?? 0));
}

/** Ports a process listens on that are reachable on the remote machine's loopback. */
export function reachablePorts(processes: ProcessView[]): number[] {
  const out = new Set<number>();
  for (const p of processes) {
    if (p.status === 'exited' || p.status === 'killed') continue;
    for (const f of p.forwards) out.add(f.host_port);
    if (!p.sandboxed) for (const port of p.ports) out.add(port);
  }
  return [...out];
}

/** What a container needs for bwrap inside: a /proc it may mount (Docker's default seccomp also refuses new namespaces). */
export const CONTAINER_SANDBOX_HINT =
  'Inside a dev container the sandbox needs "runArgs": ["--security-opt", "systempaths=unconfined"] in devcontainer.json (with Docker also "--security-opt", "seccomp=unconfined"); until then commands there run unsandboxed';

export class RemoteSession {
  private statusNow: RemoteStatusView;
  private readonly listeners = new Set<(s: RemoteStatusView) => void>();
  private readonly logger: Logger;
  private facts: RemoteFacts | null = null;
  private manifest: BundleManifest | null = null;
  private folder = '';
  private control: HostLink | null = null;
  /** Remote port → local port. */
  private readonly ports = new Map<number, number>();
  private generation: string | null = null;
  private reverseSocket: string | null = null;
  private closed = false;
  private syncing: Promise<void> = Promise.resolve();

  constructor(private readonly opts: RemoteSessionOptions) {
    this.logger = opts.logger ?? nullLogger;
    this.statusNow = {
      kind: opts.end.kind,
      target: formatTarget(opts.target),
      label: opts.end.label,
      path: opts.remotePath ?? opts.target.path,
      state: 'connecting',
      ports: [],
    };
  }

  get status(): RemoteStatusView {
    return this.statusNow;
  }

  /** The folder there, resolved (`~` made absolute). */
  get root(): string {
    return this.folder;
  }

  onStatus(listener: (s: RemoteStatusView) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  private setStatus(change: Partial<RemoteStatusView>): void {
    const next = { ...this.statusNow, ...change };
    if (!('message' in change) && change.state && change.state !== this.statusNow.state) delete next.message;
    this.statusNow = next;
    for (const l of [...this.listeners]) l(next);
  }

  /** Connects, installs this version's host there when it is not, and opens the control link. */
  async start(signal?: AbortSignal): Promise<void> {
    const end = this.opts.end;
    try {
      this.setStatus({ state: 'connecting', message: `Connecting to ${end.label}…` });
      await end.connect(signal);
      this.setStatus({ state: 'connecting', message: 'Looking at the remote machine…' });
      const probe = await end.run('sh -s', Buffer.from(PROBE_SCRIPT), signal);
      const facts = parseProbe(probe.stdout);
      this.facts = facts;
      const bundle = listBundle(this.opts.bundleDir);
      // The manifest of an installed copy of Loupe names its version; a checkout's is the build's.
      const version = bundleVersion(this.opts.bundleDir).version;
      const fit = checkFit(facts, { platform: process.platform, arch: process.arch, glibc: localGlibc() }, bundle.bytes);
      const installed = facts.installed.find((m) => m.version === version && m.build === bundle.build);
      if (installed) this.manifest = installed;
      else {
        const archives = [await bundleArchive(bundle, this.opts.cacheDir)];
        if (fit.node === 'bundled') archives.push(await nodeArchive(process.execPath, this.opts.cacheDir));
        const mb = Math.round(bundle.bytes / 1048576);
        this.setStatus({ state: 'connecting', message: `Installing Loupe ${version} there (${mb} MB${fit.node === 'bundled' ? ' and Node' : ''})…` });
        const node = fit.node === 'system' && facts.node ? ({ kind: 'system', path: facts.node.path } as const) : ({ kind: 'bundled' } as const);
        await install((command, input) => end.run(command, input, signal), { version: version, build: bundle.build, archives, node });
        this.manifest = { version: version, build: bundle.build, node: node.kind, ...(node.kind === 'system' ? { node_path: node.path } : {}), created_at: new Date().toISOString() };
        this.logger.info('remote.installed', { target: this.statusNow.target, version: version, node: node.kind });
      }
      await end.hostInstalled?.(this.hostBase());
      const p = this.opts.remotePath ?? this.opts.target.path;
      this.folder = p === '~' ? facts.home : p.startsWith('~/') ? path.posix.join(facts.home, p.slice(2)) : p;
      this.setStatus({ state: 'connecting', message: 'Starting Loupe’s host there…', path: this.folder });
      const first = await this.openWire(signal);
      let used = false;
      this.control = new HostLink({
        open: (s) => {
          if (!used) {
            used = true;
            return Promise.resolve(first);
          }
          return this.openWire(s);
        },
      });
      this.control.onState((state, message) => {
        if (this.closed) return;
        this.setStatus({ state, ...(message ? { message } : {}) });
        if (state === 'connected') void this.refresh();
      });
      this.control.on('processes.changed', ({ processes }) => this.syncPorts(processes));
      await this.control.connected(ATTACH_TIMEOUT_MS);
    } catch (err) {
      this.setStatus({ state: 'lost', message: (err as Error).message });
      throw err;
    }
  }

  /** After a (re)connect: the ports there now, and the sandbox. */
  private async refresh(): Promise<void> {
    const link = this.control;
    if (!link) return;
    try {
      this.syncPorts(await link.request('processes.list', undefined));
      const sb = await link.request('settings.sandbox', undefined);
      const reason = !sb.active && this.opts.end.kind === 'devcontainer' ? `${sb.reason ?? 'bwrap cannot run'}. ${CONTAINER_SANDBOX_HINT}` : sb.reason;
      this.setStatus({ sandbox: { active: sb.active, reason } });
    } catch (err) {
      this.logger.warn('remote.refresh_failed', { error: err });
    }
  }

  /** A new link to the folder's host there, attached and ready for the session layer. */
  async openWire(signal?: AbortSignal): Promise<Wire> {
    if (this.closed) throw new LoupeError('REMOTE_UNAVAILABLE', 'This remote workspace was closed.');
    const end = this.opts.end;
    const facts = this.facts;
    const manifest = this.manifest;
    if (!facts || !manifest) throw new LoupeError('REMOTE_UNAVAILABLE', 'The remote workspace has not started.');
    await end.connect(signal);
    const gen = await end.generation();
    if (gen !== this.generation) {
      // A new connection: forwards made on the old one are gone.
      this.generation = gen;
      this.reverseSocket = null;
      await this.reforward();
    }
    const spec = await this.modelSpec();
    const child = end.stream(`${this.hostBase()} remote-server --connect`);
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4096)));
    child.on('error', () => undefined);
    const raw = lineWire(child.stdout!, child.stdin!);
    raw.onClose(() => child.kill('SIGTERM'));
    const { wire, first } = afterFirst(raw);
    raw.send(JSON.stringify({ t: 'attach', folder: this.folder, ...(spec ? { model: spec } : {}) }));
    let reply: DaemonReply;
    try {
      const text = await Promise.race([
        first,
        new Promise<never>((_r, reject) => setTimeout(() => reject(new Error(`no answer within ${ATTACH_TIMEOUT_MS / 1000} s`)), ATTACH_TIMEOUT_MS).unref()),
      ]);
      reply = JSON.parse(text) as DaemonReply;
    } catch (err) {
      raw.terminate();
      const said = stderr.trim().split('\n').pop();
      throw new LoupeError('REMOTE_UNAVAILABLE', `Loupe's host on ${end.label} did not start: ${said || (err as Error).message}`);
    }
    if (reply.t === 'error') {
      raw.terminate();
      throw new LoupeError(reply.code === 'FILE_NOT_FOUND' || reply.code === 'INVALID_PATH' ? reply.code : 'REMOTE_UNAVAILABLE', reply.message);
    }
    if (reply.t !== 'attached') {
      raw.terminate();
      throw new LoupeError('REMOTE_UNAVAILABLE', `Loupe's host on ${end.label} answered ${reply.t} to attach.`);
    }
    this.folder = reply.root;
    return wire;
  }

  /** The host's Node and entry there, quoted for its shell. */
  private hostBase(): string {
    const facts = this.facts!;
    const manifest = this.manifest!;
    return `${shellWord(nodeFor(facts.home, manifest))} ${shellWord(`${versionDir(facts.home, manifest.version)}/bin/loupe.mjs`)}`;
  }

  /** This machine's model settings for the host there, with the link's socket when the base URL needs one. */
  async modelSpec(): Promise<ModelSpec | null> {
    const spec = await this.opts.model();
    if (!spec?.base_url || !this.facts) return spec;
    let url: URL;
    try {
      url = new URL(spec.base_url);
    } catch {
      return spec;
    }
    if (this.reverseSocket === null) {
      const socket = `${this.facts.home}/.loupe-server/links/${randomBytes(9).toString('hex')}.sock`;
      const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
      try {
        this.reverseSocket = (await this.opts.end.reverse(socket, url.hostname.replace(/^\[|\]$/g, ''), port)) ? socket : '';
      } catch (err) {
        this.logger.warn('remote.model_forward_failed', { error: err });
        this.reverseSocket = '';
      }
    }
    return this.reverseSocket ? { ...spec, link_socket: this.reverseSocket } : spec;
  }

  /** Forwards what processes there listen on (and the fixed ports) to this machine's loopback. */
  private syncPorts(processes: ProcessView[]): void {
    const wanted = new Set([...reachablePorts(processes), ...(this.opts.fixedPorts ?? [])]);
    this.syncing = this.syncing.then(async () => {
      const end = this.opts.end;
      for (const [remote, local] of [...this.ports]) {
        if (wanted.has(remote)) continue;
        this.ports.delete(remote);
        await end.unforward(local, remote).catch(() => undefined);
      }
      for (const remote of wanted) {
        if (this.ports.has(remote)) continue;
        const local = await freeLocalPort(remote);
        try {
          await end.forward(local, remote);
          this.ports.set(remote, local);
        } catch (err) {
          this.logger.warn('remote.forward_failed', { port: remote, error: err });
        }
      }
      this.setStatus({ ports: [...this.ports].map(([remote_port, local_port]) => ({ remote_port, local_port })).sort((a, b) => a.remote_port - b.remote_port) });
    });
  }

  /** After the way was made again: every forward again. */
  private async reforward(): Promise<void> {
    const all = [...this.ports];
    this.ports.clear();
    for (const [remote, local] of all) {
      try {
        await this.opts.end.forward(local, remote);
        this.ports.set(remote, local);
      } catch {
        // Taken meanwhile: the next process list forwards it to another port.
      }
    }
    if (!this.ports.size && this.opts.fixedPorts?.length) this.syncPorts([]);
  }

  /** The control link (its events and requests), once started. */
  get link(): HostLink {
    if (!this.control) throw new LoupeError('REMOTE_UNAVAILABLE', 'The remote workspace has not started.');
    return this.control;
  }

  /** Lets go of the links and forwards; the host there keeps running (and its turns with it). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.control?.close();
    await this.syncing.catch(() => undefined);
    for (const [remote, local] of this.ports) await this.opts.end.unforward(local, remote).catch(() => undefined);
    this.ports.clear();
    await this.opts.end.close();
  }
}

/** This machine's glibc ("2.36"), or null (another C library, another OS). */
export function localGlibc(): string | null {
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  return header?.glibcVersionRuntime ?? null;
}
