// A language server is the repository's program: it runs inside the OS sandbox by the same
// policy as `bash` (the read-denied paths hidden, nothing outside the workspace and its temp
// folder writable, no network), with the workspace read-only besides. One probe program runs both
// as a configured server and through the bash tool, and what each could do is compared; with the
// user's "sandbox": "off" the server runs outside, as bash would.
import { createServer, type Server } from 'node:net';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Logger } from '../../src/main/services/log/logger';
import { probeSandbox } from '../../src/main/services/sandbox/probe';
import { harness, type Harness } from '../support/toolHarness';
import { until } from '../support/tmp';

const SLOW = 120_000;
const SANDBOX = (await probeSandbox()).available;

interface Probe {
  workspaceWrite: boolean;
  outsideWrite: boolean;
  deniedRead: boolean;
  tmpWrite: boolean;
  network: boolean;
}

// Tries each thing once, prints what worked as one line, then waits as a server would.
const PROBE = `
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
const [root, outside, port, tag] = process.argv.slice(2);
const tryIt = (f) => { try { f(); return true; } catch { return false; } };
const out = {
  workspaceWrite: tryIt(() => writeFileSync(path.join(root, tag + '-wrote.txt'), 'x')),
  outsideWrite: tryIt(() => writeFileSync(path.join(outside, tag + '-escaped.txt'), 'x')),
  deniedRead: tryIt(() => readFileSync(path.join(root, 'secrets', 'key.txt'), 'utf8').includes('hunter2') || (() => { throw new Error('empty'); })()),
  tmpWrite: tryIt(() => appendFileSync(path.join(process.env.TMPDIR ?? '/nonexistent', 'x'), 'x')),
};
const s = connect(Number(port), '127.0.0.1');
const done = (network) => { s.destroy(); process.stderr.write('PROBE ' + JSON.stringify({ ...out, network }) + '\\n'); if (tag === 'bash') process.exit(0); };
s.once('connect', () => done(true));
s.once('error', () => done(false));
setTimeout(() => done(false), 10000).unref();
// As a server it lives until its stdin closes; through bash (stdin at its end at once) it waits
// for its own answer instead, or the line would race the exit.
if (tag !== 'bash') {
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0));
}
`;

let h: Harness | null = null;
let listener: Server | null = null;
afterEach(async () => {
  await h?.cleanup();
  h = null;
  await new Promise<void>((resolve) => (listener ? listener.close(() => resolve()) : resolve()));
  listener = null;
});

function capturing(lines: string[]): Logger {
  const keep = (event: string, fields?: Record<string, unknown>) => {
    if (event === 'lsp.stderr' && typeof fields?.line === 'string') lines.push(fields.line);
  };
  return { info: keep, warn: keep, error: keep };
}

async function setUp(sandbox: 'auto' | 'off', trusted = true): Promise<{ h: Harness; stderr: string[]; port: number; probe: string }> {
  const stderr: string[] = [];
  h = await harness({ lsp: true, sandbox, logger: capturing(stderr) });
  listener = createServer((c) => c.end());
  await new Promise<void>((resolve) => listener!.listen(0, '127.0.0.1', () => resolve()));
  const port = (listener.address() as { port: number }).port;
  const probe = path.join(h.sandbox, 'probe.mjs');
  await writeFile(probe, PROBE);
  await h.write('secrets/key.txt', 'hunter2');
  await h.write('a.probe', 'anything\n');
  await h.write(
    '.loupe/config.json',
    JSON.stringify({
      permissions: [{ kind: 'read', pattern: 'secrets/**', action: 'deny' }],
      lsp: { probe: { command: [process.execPath, probe, h.root, h.sandbox, String(port), 'server'], extensions: ['.probe'] } },
      limits: { diagnostics_wait_ms: 1000 },
    }),
  );
  if (trusted) await h.trust();
  return { h, stderr, port, probe };
}

async function serverProbe(h: Harness, stderr: string[]): Promise<Probe> {
  // The first file of its language starts the server. The probe never answers as a server
  // would, so the call is stopped once it has said what it could do (else it waits 15 s).
  const stop = new AbortController();
  const asked = h.call('diagnostics', { path: 'a.probe' }, stop.signal).catch(() => null);
  const line = await until(() => stderr.find((l) => l.startsWith('PROBE ')), 60_000, 50);
  stop.abort();
  await asked;
  return JSON.parse(line.slice('PROBE '.length)) as Probe;
}

async function bashProbe(h: Harness, probe: string, port: number): Promise<Probe> {
  const r = await h.call('bash', { command: `'${process.execPath}' '${probe}' '${h.root}' '${h.sandbox}' ${port} bash 2>&1`, description: 'probe' });
  const line = r.output.split('\n').find((l) => l.startsWith('PROBE '));
  expect(line, r.output).toBeDefined();
  return JSON.parse(line!.slice('PROBE '.length)) as Probe;
}

describe.runIf(process.platform === 'linux')('a language server and the OS sandbox', () => {
  it.runIf(SANDBOX)(
    'is held as bash is (no read-denied file, no write outside, no network), and cannot write the workspace',
    async () => {
      const { h, stderr, port, probe } = await setUp('auto');
      const server = await serverProbe(h, stderr);
      const status = h.ctx.lsp!.status().find((s) => s.language === 'probe');
      const bash = await bashProbe(h, probe, port);
      expect(status?.sandboxed).toBe(true);
      expect(bash).toEqual({ workspaceWrite: true, outsideWrite: false, deniedRead: false, tmpWrite: true, network: false });
      expect(server).toEqual({ ...bash, workspaceWrite: false });
      expect(existsSync(path.join(h.root, 'server-wrote.txt'))).toBe(false);
      expect(existsSync(path.join(h.sandbox, 'server-escaped.txt'))).toBe(false);
    },
    SLOW,
  );

  it(
    'runs outside it when the user set "sandbox": "off", as bash then does',
    async () => {
      const { h, stderr } = await setUp('off');
      const server = await serverProbe(h, stderr);
      expect(h.ctx.lsp!.status().find((s) => s.language === 'probe')?.sandboxed).toBe(false);
      expect(server).toMatchObject({ workspaceWrite: true, outsideWrite: true, deniedRead: true, network: true });
    },
    SLOW,
  );

  it(
    'the server command of a folder nobody trusted never starts, even with the sandbox off',
    async () => {
      const { h, stderr } = await setUp('off', false);
      const r = await h.call('diagnostics', { path: 'a.probe' });
      expect(r.ok, r.output).toBe(true);
      expect(h.ctx.lsp!.started).toBe(0);
      expect(stderr).toEqual([]);
      expect(existsSync(path.join(h.root, 'server-wrote.txt'))).toBe(false);
      // Trusting the folder as its config is now lets it start.
      await h.trust();
      expect(await serverProbe(h, stderr)).toMatchObject({ workspaceWrite: true });
      expect(h.ctx.lsp!.started).toBe(1);
    },
    SLOW,
  );
});
