// A hosted agent's `fs/read_text_file` reads the workspace the way every read of it does: through
// real folders, under the read rules. Links that lead out, `..`, absolute paths elsewhere and files
// a deny rule covers are refused; the agent hears why and nothing outside reaches it.
// test/fixtures/agents/reader.mjs plays the agent, in the sandbox.
import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatEvent, EventChannel } from '../../src/shared/contract';
import { Host } from '../../src/main/host/host';
import { git, tempDir, until, writeTree } from '../support/tmp';
import { writeUserSettings } from '../support/userSettings';
import { chatEvents } from '../support/hostedAgents';

const READER = path.resolve('test/fixtures/agents/reader.mjs');
const SECRET = 'outside secret 7f3a';

let dir: string;
let ws: string;
let cleanup: () => Promise<void>;
let host: Host | undefined;

beforeEach(async () => {
  ({ dir, cleanup } = await tempDir('loupe-reader-'));
  ws = path.join(dir, 'ws');
  await writeTree(ws, { 'inside.txt': 'inside words\n', 'src/a.ts': 'export const a = 1;\n', '.env': 'TOKEN=abc\n' });
  await writeTree(path.join(dir, 'elsewhere'), { 'secret.txt': `${SECRET}\n` });
  symlinkSync(path.join(dir, 'elsewhere/secret.txt'), path.join(ws, 'link-to-secret.txt'));
  symlinkSync(path.join(dir, 'elsewhere'), path.join(ws, 'link-dir'));
  mkdirSync(path.join(ws, 'nested'));
  symlinkSync('../../elsewhere/secret.txt', path.join(ws, 'nested/relative-link.txt'));
  git(ws, 'init', '-q');
});
afterEach(async () => {
  await host?.dispose();
  host = undefined;
  await cleanup();
});

describe("a hosted agent's client reads", () => {
  it('read inside; every way out (links, .., absolute) and a denied file are refused with a reason', async () => {
    const config = path.join(dir, 'config');
    writeUserSettings(config, { agents: { reader: { command: process.execPath, args: [READER] } }, permissions: [{ kind: 'read', pattern: '.env', action: 'deny' }] });
    host = new Host({ transport: 'websocket', configDir: config });
    const events: { ch: EventChannel; p: unknown }[] = [];
    host.onEvent((ch, p) => events.push({ ch, p }));
    await host.open(ws);
    const outside = [
      path.join(ws, 'link-to-secret.txt'),
      path.join(ws, 'link-dir/secret.txt'),
      path.join(ws, 'nested/relative-link.txt'),
      path.join(ws, '../elsewhere/secret.txt'),
      path.join(dir, 'elsewhere/secret.txt'),
      'link-to-secret.txt',
      'link-dir/secret.txt',
      '../elsewhere/secret.txt',
    ];
    const denied = [path.join(ws, '.env')];
    const allowed = [path.join(ws, 'inside.txt'), path.join(ws, 'src/a.ts')];
    const { session_id } = await host.handle('chat.send', { text: JSON.stringify([...allowed, ...outside, ...denied]), agent: 'reader' });
    const done = await until(() => chatEvents(events, session_id).find((e): e is Extract<ChatEvent, { type: 'request_finished' }> => e.type === 'request_finished'), 60_000, 50);
    expect(done.status).toBe('done');
    const said = chatEvents(events, session_id).flatMap((e) => (e.type === 'text_delta' ? [e.text] : [])).join('');
    const results = JSON.parse(said) as Record<string, { content?: string; refused?: string }>;
    expect(results[allowed[0]!]).toEqual({ content: 'inside words\n' });
    expect(results[allowed[1]!]).toEqual({ content: 'export const a = 1;\n' });
    for (const p of [...outside, ...denied]) {
      expect(results[p]?.content, p).toBeUndefined();
      expect(results[p]?.refused, p).toBeTruthy();
    }
    expect(said).not.toContain(SECRET);
    expect(said).not.toContain('TOKEN=abc');
  }, 120_000);
});
