// The stdio transport of an MCP server Loupe starts (docs/architecture.md, "MCP servers"): the
// program runs as the sandbox launch says (bwrap around it, or plainly), in its own process group
// with the command marker, so stopping it stops its whole family as a command's stop does. Its
// stdout carries JSON-RPC, one message per line; a line that is not one is kept (the first few)
// so the status can say what the server printed instead. Its stderr's last lines are kept for the
// settings' failed row. It ends when the program exits, saying how.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ProcessFamily } from '../shell/processReaper';

export interface SpawnSpec {
  program: string;
  argv: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** The LOUPE_COMMAND_ID value in `env`, by which the family is found even after it left the group. */
  marker: string;
}

export interface StdioEvents {
  stderr(line: string): void;
  /** A stdout line that is not a JSON-RPC message. */
  garbage(line: string): void;
  exited(code: number | null, signal: NodeJS.Signals | null): void;
}

/** A server has this long to exit on its own once its stdin closes, before the family is signalled. */
const EXIT_ON_EOF_MS = 300;
const FAMILY_POLL_MS = 2000;
const MAX_LINE = 64 * 1024 * 1024;

export class SpawnedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcess | null = null;
  private family: ProcessFamily | null = null;
  private out = '';
  private errTail = '';
  private exited: Promise<void> | null = null;
  private closing = false;

  constructor(
    private readonly spec: SpawnSpec,
    private readonly events: StdioEvents,
  ) {}

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  async start(): Promise<void> {
    const child = spawn(this.spec.program, this.spec.argv, { cwd: this.spec.cwd, env: this.spec.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    this.child = child;
    this.family = new ProcessFamily(child.pid!, this.spec.marker, FAMILY_POLL_MS);
    this.family.watch();
    child.stdout!.setEncoding('utf8');
    child.stderr!.setEncoding('utf8');
    child.stdout!.on('data', (d: string) => this.readOut(d));
    child.stderr!.on('data', (d: string) => this.readErr(d));
    child.stdin!.on('error', (err) => this.onerror?.(err));
    this.exited = new Promise((resolve) =>
      child.once('close', (code, signal) => {
        if (this.errTail) this.events.stderr(this.errTail);
        this.errTail = '';
        this.family?.stopWatching();
        this.events.exited(code, signal);
        this.onclose?.();
        resolve();
      }),
    );
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed || !stdin.writable) throw new Error('the server is not running');
    const line = `${JSON.stringify(message)}\n`;
    if (!stdin.write(line)) await new Promise<void>((resolve) => stdin.once('drain', resolve));
  }

  /** Ends its stdin, lets it exit, then stops whatever of its family is left. */
  async close(): Promise<void> {
    if (this.closing || !this.child) return this.exited ?? undefined;
    this.closing = true;
    this.child.stdin?.end();
    const exited = this.exited!;
    const quit = await Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), EXIT_ON_EOF_MS))]);
    // Whatever it started goes with it, exited or not (a server's own children may linger).
    await this.family?.killAll('SIGTERM', quit ? 200 : 1000);
    await exited;
  }

  private readOut(chunk: string): void {
    this.out += chunk;
    if (this.out.length > MAX_LINE) {
      this.events.garbage(`${this.out.slice(0, 200)}… (a line of more than 64 MB)`);
      this.out = '';
      return;
    }
    let nl: number;
    while ((nl = this.out.indexOf('\n')) >= 0) {
      const line = this.out.slice(0, nl).replace(/\r$/, '');
      this.out = this.out.slice(nl + 1);
      if (!line.trim()) continue;
      let message: JSONRPCMessage;
      try {
        message = JSONRPCMessageSchema.parse(JSON.parse(line));
      } catch {
        this.events.garbage(line);
        continue;
      }
      this.onmessage?.(message);
    }
  }

  private readErr(chunk: string): void {
    const text = this.errTail + chunk;
    const lines = text.split('\n');
    this.errTail = lines.pop() ?? '';
    for (const l of lines) this.events.stderr(l.replace(/\r$/, ''));
    if (this.errTail.length > 4096) {
      this.events.stderr(this.errTail);
      this.errTail = '';
    }
  }
}
