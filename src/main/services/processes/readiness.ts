// Waiting until a background process is ready: a line of its output matches a regex, a port
// accepts connections, or it exits. Always comes back: on a timeout, an abort or an early exit
// it says which, and the caller shows the output so far.
import net from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import { InvalidArgumentError } from '../../errors';
import { stripAnsi } from '../shell/ansi';
import type { ManagedProcess } from './managedProcess';
import { readRange } from './outputQuery';
import type { WaitFor, WaitResult } from './types';

const PORT_POLL_MS = 100;
/** A regex wait also looks at output already printed, at most this much of it. */
const LOOKBACK_BYTES = 1024 * 1024;

export function compileWaitRegex(source: string): RegExp {
  try {
    return new RegExp(source);
  } catch (err) {
    throw new InvalidArgumentError(`wait_for.regex is not a valid regular expression: ${(err as Error).message}`);
  }
}

export async function waitFor(p: ManagedProcess, cond: WaitFor, timeoutMs: number, signal?: AbortSignal): Promise<WaitResult> {
  const regex = 'regex' in cond ? compileWaitRegex(cond.regex) : null;
  const cleanup: (() => void)[] = [];
  try {
    return await new Promise<WaitResult>((resolve) => {
      const done = (r: WaitResult) => resolve(r);
      const timer = setTimeout(() => done({ satisfied: false, timed_out: true, exited: false }), timeoutMs);
      cleanup.push(() => clearTimeout(timer));
      const onAbort = () => done({ satisfied: false, timed_out: false, exited: false });
      if (signal?.aborted) onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      cleanup.push(() => signal?.removeEventListener('abort', onAbort));
      void p.whenExited().then(() => {
        // The output that came with the exit is in: a regex gets a last look.
        if ('exit' in cond) return done({ satisfied: true, timed_out: false, exited: true });
        if (regex) {
          const line = findLine(p, regex, Math.max(0, p.bytes - LOOKBACK_BYTES));
          if (line !== null) return done({ satisfied: true, timed_out: false, exited: true, matched_line: line });
        }
        done({ satisfied: false, timed_out: false, exited: true });
      });
      if (regex) watchLines(p, regex, done, cleanup);
      if ('port' in cond) watchPort(p, cond.port, done, cleanup);
    });
  } finally {
    for (const c of cleanup) c();
  }
}

function findLine(p: ManagedProcess, regex: RegExp, from: number): string | null {
  const { bytes } = readRange(p, from, p.bytes);
  for (const line of stripAnsi(bytes.toString('utf8')).split('\n')) if (regex.test(line)) return line.trim();
  return null;
}

function watchLines(p: ManagedProcess, regex: RegExp, done: (r: WaitResult) => void, cleanup: (() => void)[]): void {
  const earlier = findLine(p, regex, Math.max(0, p.bytes - LOOKBACK_BYTES));
  if (earlier !== null) return done({ satisfied: true, timed_out: false, exited: false, matched_line: earlier });
  const decoder = new StringDecoder('utf8');
  let partial = '';
  cleanup.push(
    p.onData((chunk) => {
      const lines = (partial + decoder.write(chunk)).split('\n');
      partial = lines.pop()!;
      // A prompt or a progress line may not end with a newline yet: look at it too.
      for (const line of [...lines, partial]) {
        const plain = stripAnsi(line);
        if (regex.test(plain)) return done({ satisfied: true, timed_out: false, exited: false, matched_line: plain.trim() });
      }
      if (partial.length > 64 * 1024) partial = partial.slice(-4096);
    }),
  );
}

function watchPort(p: ManagedProcess, port: number, done: (r: WaitResult) => void, cleanup: (() => void)[]): void {
  let stopped = false;
  cleanup.push(() => (stopped = true));
  const tick = async () => {
    if (stopped) return;
    const listening = process.platform === 'linux' ? (await p.refreshPorts()).includes(port) : await accepts(port);
    if (stopped) return;
    if (listening) return done({ satisfied: true, timed_out: false, exited: false, port });
    setTimeout(() => void tick(), PORT_POLL_MS);
  };
  void tick();
}

/** Where /proc cannot tell (macOS): does 127.0.0.1:port accept a connection? */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}
