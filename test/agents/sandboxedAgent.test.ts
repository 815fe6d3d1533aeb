// What a hosted agent's process can reach, seen from inside it (test/fixtures/agents/probe.mjs, a
// minimal ACP agent): its key from the environment its entry names and nothing else of Loupe's,
// its own state folder as HOME (writable), Loupe's settings file hidden, the rest of the machine
// read-only; put in its asking mode; its client writes inside the workspace land as modifications,
// outside it are refused. Then the same agent with the sandbox off, as a control.
import { readFileSync, existsSync, readdirSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatEvent, EventChannel } from '../../src/shared/contract';
import { Host } from '../../src/main/host/host';
import { tempDir, until, writeTree } from '../support/tmp';
import { writeUserSettings } from '../support/userSettings';
import { chatEvents } from '../support/hostedAgents';

const PROBE = path.resolve('test/fixtures/agents/probe.mjs');
const KEY = 'sk-probe-0123456789';

let dir: string;
let ws: string;
let cleanup: () => Promise<void>;
let host: Host | undefined;
let events: { ch: EventChannel; p: unknown }[];
const saved = { key: process.env.PROBE_KEY_SOURCE, secret: process.env.PROBE_SECRET };

beforeEach(async () => {
  ({ dir, cleanup } = await tempDir('loupe-probe-'));
  ws = path.join(dir, 'ws');
  await writeTree(ws, { 'a.txt': 'a\n' });
  process.env.PROBE_KEY_SOURCE = KEY;
  process.env.PROBE_SECRET = 'loupe-own-secret';
});
afterEach(async () => {
  await host?.dispose();
  host = undefined;
  await cleanup();
  for (const [k, v] of [['PROBE_KEY_SOURCE', saved.key], ['PROBE_SECRET', saved.secret]] as const) if (v === undefined) delete process.env[k];
  else process.env[k] = v;
});

async function probe(settings: Record<string, unknown> = {}): Promise<{ facts: Record<string, unknown>; sessionId: string; correlationId: string }> {
  const config = path.join(dir, 'config');
  writeUserSettings(config, { ...settings, agents: { probe: { command: process.execPath, args: [PROBE], env: { PROBE_KEY: '${env:PROBE_KEY_SOURCE}' } } } });
  host = new Host({ transport: 'websocket', configDir: config });
  events = [];
  host.onEvent((ch, p) => events.push({ ch, p }));
  await host.open(ws);
  const ask = { inside: path.join(ws, 'from-client.txt'), outside: path.join(dir, 'outside.txt'), settings: path.join(config, 'settings.json') };
  const { session_id, correlation_id } = await host.handle('chat.send', { text: JSON.stringify(ask), agent: 'probe' });
  const done = await until(() => chatEvents(events, session_id).find((e): e is Extract<ChatEvent, { type: 'request_finished' }> => e.type === 'request_finished'), 60_000, 50);
  expect(done.status).toBe('done');
  return { facts: JSON.parse(done.text) as Record<string, unknown>, sessionId: session_id, correlationId: correlation_id };
}

/** Every file under `root`, with its text. */
function files(root: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(root)) {
    const p = path.join(root, name);
    if (statSync(p).isDirectory()) out.push(...files(p));
    else out.push(readFileSync(p, 'latin1'));
  }
  return out;
}

describe('a hosted agent in the sandbox', () => {
  it('sees its key and nothing else of Loupe, keeps its state in its own folder, cannot write outside or read Loupe settings', async () => {
    const { facts, sessionId, correlationId } = await probe();
    expect(facts.key_sha).toBe(createHash('sha256').update(KEY).digest('hex'));
    expect(facts.loupe_env).toEqual([]);
    expect(facts.home).toBe(path.join(dir, 'config', 'agents', 'probe'));
    expect(facts.write_home).toBe('ok');
    expect(readFileSync(path.join(dir, 'config', 'agents', 'probe', 'state.txt'), 'utf8')).toBe('mine');
    expect(facts.write_outside).toBe('EROFS');
    expect(facts.read_settings).not.toBe('ok');
    expect(existsSync(path.join(dir, 'outside.txt'))).toBe(false);
    // Put in the mode that asks before acting, not the one it starts in.
    expect(facts.mode).toBe('default');
    // Its client write inside the workspace is a modification; outside, refused.
    expect(facts.fs_inside).toBe('ok');
    expect(facts.fs_outside).toMatch(/outside the workspace/);
    expect(readFileSync(path.join(ws, 'from-client.txt'), 'utf8')).toBe('through the client\n');
    const { modifications } = await host!.handle('modlog.list', { correlation_id: correlationId });
    expect(modifications).toEqual([expect.objectContaining({ file: 'from-client.txt', tool: 'acp:probe', session_id: sessionId, operation: 'create' })]);
    // The key was never written into the workspace (its log, its saved session, anything).
    await host!.dispose();
    host = undefined;
    expect(files(ws).some((t) => t.includes(KEY))).toBe(false);
  });

  it('control: with the sandbox off the same writes and reads succeed', async () => {
    const { facts } = await probe({ sandbox: 'off' });
    expect(facts.write_outside).toBe('ok');
    expect(facts.read_settings).toBe('ok');
    expect(existsSync(path.join(dir, 'outside.txt'))).toBe(true);
    // Its environment is still its own: Loupe's variables stay out.
    expect(facts.loupe_env).toEqual([]);
  });
});
