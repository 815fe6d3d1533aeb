// TCP and Unix socket connections carried over one process's stdin and stdout, both ways: what a
// dev container needs since its engine forwards no ports and no socket back (`docker exec -i`,
// `podman exec -i` are the only way in). This machine's side asks for connections to a port in
// the container (forwardPorts, the ports of processes there) and asks the container's side to
// listen on a Unix socket whose connections come back here (the model on this machine's
// loopback). Frames: type (1 byte), stream id (4), length (4), payload. Streams this side opens
// have even ids, the other side's odd ones. A full pipe pauses every stream until it drains: the
// simplest flow control that never drops a byte.
import { chmodSync, mkdirSync, unlinkSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';

const OPEN = 1;
const DATA = 2;
const CLOSE = 3;
const LISTEN = 4;
const HEADER = 9;
const MAX_FRAME = 1024 * 1024;

/** What an OPEN asks for: a port of the other side's loopback, or a listener this side named. */
export type OpenTarget = { port: number } | { listener: string };

export interface TunnelOptions {
  side: 'local' | 'remote';
  /** Connects an OPEN from the other side; throwing refuses it. */
  connect(target: OpenTarget): Promise<net.Socket>;
}

/** A stream's socket, or, while its connection is being made, what arrived for it meanwhile. */
interface Stream {
  socket: net.Socket | null;
  early: Buffer[];
  ended: boolean;
}

export class Tunnel {
  private nextId: number;
  private readonly streams = new Map<number, Stream>();
  private readonly listeners: net.Server[] = [];
  private buffer: Buffer = Buffer.alloc(0);
  private closed = false;
  private readonly closeListeners: (() => void)[] = [];

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly opts: TunnelOptions,
  ) {
    this.nextId = opts.side === 'local' ? 2 : 1;
    input.on('data', (chunk: Buffer) => this.receive(chunk));
    input.on('close', () => this.close());
    input.on('end', () => this.close());
    output.on('error', () => this.close());
    output.on('drain', () => {
      for (const s of this.streams.values()) s.socket?.resume();
    });
  }

  onClose(listener: () => void): void {
    this.closeListeners.push(listener);
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  private send(type: number, id: number, payload: Buffer = Buffer.alloc(0)): boolean {
    if (this.closed) return false;
    const head = Buffer.alloc(HEADER);
    head.writeUInt8(type, 0);
    head.writeUInt32BE(id, 1);
    head.writeUInt32BE(payload.length, 5);
    return this.output.write(Buffer.concat([head, payload]));
  }

  /** Carries `socket` to what `target` names on the other side. */
  carry(socket: net.Socket, target: OpenTarget): void {
    const id = this.nextId;
    this.nextId += 2;
    this.bind(id, socket);
    this.send(OPEN, id, Buffer.from(JSON.stringify(target)));
  }

  /** Asks the other side to listen on a Unix socket; its connections come here as `{listener: name}`. */
  listenThere(name: string, socketPath: string): void {
    this.send(LISTEN, 0, Buffer.from(JSON.stringify({ name, path: socketPath })));
  }

  private bind(id: number, socket: net.Socket): void {
    const stream = this.streams.get(id);
    this.streams.set(id, { socket, early: [], ended: false });
    for (const d of stream?.early ?? []) socket.write(d);
    if (stream?.ended) socket.end();
    socket.on('data', (d: Buffer) => {
      for (let at = 0; at < d.length; at += MAX_FRAME) {
        if (!this.send(DATA, id, d.subarray(at, at + MAX_FRAME))) socket.pause();
      }
    });
    const done = () => {
      if (this.streams.get(id)?.socket !== socket) return;
      this.streams.delete(id);
      this.send(CLOSE, id);
    };
    socket.on('end', done);
    socket.on('close', done);
    socket.on('error', done);
  }

  private receive(chunk: Buffer): void {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    while (this.buffer.length >= HEADER) {
      const type = this.buffer.readUInt8(0);
      const id = this.buffer.readUInt32BE(1);
      const len = this.buffer.readUInt32BE(5);
      if (len > MAX_FRAME) {
        this.close();
        return;
      }
      if (this.buffer.length < HEADER + len) break;
      const payload = this.buffer.subarray(HEADER, HEADER + len);
      this.buffer = this.buffer.subarray(HEADER + len);
      this.frame(type, id, payload);
    }
  }

  private frame(type: number, id: number, payload: Buffer): void {
    const stream = this.streams.get(id);
    if (type === DATA) {
      if (!stream) return;
      if (!stream.socket) stream.early.push(Buffer.from(payload));
      else if (!stream.socket.write(payload)) {
        this.input.pause();
        stream.socket.once('drain', () => this.input.resume());
      }
      return;
    }
    if (type === CLOSE) {
      if (!stream) return;
      if (stream.socket) {
        this.streams.delete(id);
        stream.socket.end();
      } else stream.ended = true;
      return;
    }
    if (type === OPEN) {
      let target: OpenTarget;
      try {
        target = JSON.parse(payload.toString()) as OpenTarget;
      } catch {
        this.send(CLOSE, id);
        return;
      }
      // Frames for the stream may come before its connection is made: kept until it is.
      const waiting: Stream = { socket: null, early: [], ended: false };
      this.streams.set(id, waiting);
      this.opts.connect(target).then(
        (socket) => {
          if (this.streams.get(id) !== waiting) return void socket.destroy();
          this.bind(id, socket);
        },
        () => {
          if (this.streams.get(id) === waiting) this.streams.delete(id);
          this.send(CLOSE, id);
        },
      );
      return;
    }
    if (type === LISTEN && this.opts.side === 'remote') {
      try {
        const { name, path: file } = JSON.parse(payload.toString()) as { name: string; path: string };
        this.listen(name, file);
      } catch {
        // A malformed request listens on nothing.
      }
    }
  }

  /** The container's side: a Unix socket (0600) whose connections go back to this tunnel's other side. */
  private listen(name: string, file: string): void {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    try {
      unlinkSync(file);
    } catch {
      // Not there.
    }
    const server = net.createServer((socket) => this.carry(socket, { listener: name }));
    const umask = process.umask(0o177);
    server.listen(file, () => {
      process.umask(umask);
      chmodSync(file, 0o600);
    });
    server.on('error', () => process.umask(umask));
    this.listeners.push(server);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const s of this.streams.values()) s.socket?.destroy();
    this.streams.clear();
    for (const l of this.listeners) l.close();
    for (const l of this.closeListeners) l();
  }
}
