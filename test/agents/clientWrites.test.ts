// A hosted agent that both asks Loupe to write a file (`fs/write_text_file`) and writes it itself,
// and says its tool call completed before Loupe has answered (OpenCode does all three): each file
// is still one modification of the request that changed something, so one undo restores them all.
// test/fixtures/agents/racer.mjs plays that agent, in the sandbox.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatEvent, EventChannel } from '../../src/shared/contract';
import { Host } from '../../src/main/host/host';
import { git, tempDir, until, writeTree } from '../support/tmp';
import { writeUserSettings } from '../support/userSettings';
import { chatEvents } from '../support/hostedAgents';

const RACER = path.resolve('test/fixtures/agents/racer.mjs');
const FILES = ['f0.txt', 'f1.txt', 'f2.txt', 'f3.txt', 'f4.txt', 'f5.txt', 'f6.txt', 'f7.txt'];

let dir: string;
let ws: string;
let cleanup: () => Promise<void>;
let host: Host | undefined;

beforeEach(async () => {
  ({ dir, cleanup } = await tempDir('loupe-racer-'));
  ws = path.join(dir, 'ws');
  await writeTree(ws, Object.fromEntries(FILES.map((f) => [f, `original ${f}\n`])));
  git(ws, 'init', '-q');
  git(ws, 'add', '-A');
  git(ws, 'commit', '-q', '-m', 'start');
});
afterEach(async () => {
  await host?.dispose();
  host = undefined;
  await cleanup();
});

describe('a hosted agent that writes through the client and by itself', () => {
  for (const direct of [false, true]) {
    it(`records each file once, as a change, and one undo restores all (${direct ? 'it writes the file too' : 'through the client only'})`, async () => {
      const config = path.join(dir, 'config');
      writeUserSettings(config, { agents: { racer: { command: process.execPath, args: [RACER] } } });
      host = new Host({ transport: 'websocket', configDir: config });
      const events: { ch: EventChannel; p: unknown }[] = [];
      host.onEvent((ch, p) => events.push({ ch, p }));
      await host.open(ws);
      const { session_id, correlation_id } = await host.handle('chat.send', { text: JSON.stringify({ files: FILES, direct }), agent: 'racer' });
      const done = await until(() => chatEvents(events, session_id).find((e): e is Extract<ChatEvent, { type: 'request_finished' }> => e.type === 'request_finished'), 60_000, 50);
      expect(done.status).toBe('done');
      for (const [i, f] of FILES.entries()) expect(readFileSync(path.join(ws, f), 'utf8')).toBe(`written by racer ${i}\n`);

      const { modifications } = await host.handle('modlog.list', { correlation_id });
      expect(modifications.map((m) => m.file).sort()).toEqual(FILES);
      for (const m of modifications) expect(m).toMatchObject({ tool: 'acp:racer', session_id, status: 'applied' });

      const preview = await host.handle('chat.undoPreview', { session_id, correlation_id });
      const undone = await host.handle('chat.undo', { session_id, correlation_id, digest: preview.digest, on_conflict: 'refuse' });
      expect(undone.rolled_back).toBe(FILES.length);
      for (const f of FILES) expect(readFileSync(path.join(ws, f), 'utf8')).toBe(`original ${f}\n`);
    }, 120_000);
  }
});
