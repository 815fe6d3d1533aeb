// Gemini CLI (the real `gemini` of @google/gemini-cli) as a session's runner, in Loupe's sandbox,
// replaying a file of model responses (its own `--fake-responses`): it writes through the client's
// `fs/write_text_file`, so each write lands through the modification log as a modification of the
// request, attributed to acp:gemini; it is put in its asking mode, so each write is a card first.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApprovalRequestView, ChatEvent, EventChannel } from '../../src/shared/contract';
import { Host } from '../../src/main/host/host';
import { tempDir, until, writeTree } from '../support/tmp';
import { writeUserSettings } from '../support/userSettings';
import { GEMINI_BIN, chatEvents } from '../support/hostedAgents';

let dir: string;
let ws: string;
let cleanup: () => Promise<void>;
let host: Host;
let events: { ch: EventChannel; p: unknown }[];

const SLOW = 240_000;

/** One streamed answer of the model, as Gemini CLI's fake-responses file holds it. */
const answer = (parts: unknown[]) => JSON.stringify({ method: 'generateContentStream', response: [{ candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 7, totalTokenCount: 19 } }] });

beforeEach(async () => {
  ({ dir, cleanup } = await tempDir('loupe-gemini-'));
  ws = path.join(dir, 'ws');
  await writeTree(ws, { 'notes.md': '# Notes\nold line\n' });
});

afterEach(async () => {
  await host?.dispose();
  await cleanup();
});

describe('Gemini CLI hosted in Loupe', () => {
  it(
    'its writes through fs/write_text_file are modifications of acp:gemini, each asked on a card first',
    async () => {
      const fake = path.join(dir, 'responses.jsonl');
      await writeFile(
        fake,
        [
          answer([{ functionCall: { name: 'write_file', args: { file_path: path.join(ws, 'hello.txt'), content: 'hello from gemini\n' } } }]),
          answer([{ functionCall: { name: 'write_file', args: { file_path: path.join(ws, 'notes.md'), content: '# Notes\nnew line\n' } } }]),
          answer([{ text: 'Wrote hello.txt and rewrote notes.md.' }]),
        ].join('\n') + '\n',
      );
      writeUserSettings(path.join(dir, 'config'), { agents: { gemini: { command: GEMINI_BIN, args: ['--acp', '--fake-responses-non-strict', fake], env: { GEMINI_API_KEY: 'not-a-real-key' }, mode: 'default' } } });
      host = new Host({ transport: 'websocket', configDir: path.join(dir, 'config') });
      events = [];
      host.onEvent((ch, p) => events.push({ ch, p }));
      await host.open(ws);
      const { session_id, correlation_id } = await host.handle('chat.send', { text: 'Write hello.txt and update notes.md.', agent: 'gemini' });
      const answered = new Set<string>();
      const finished = () => chatEvents(events, session_id).find((e): e is Extract<ChatEvent, { type: 'request_finished' }> => e.type === 'request_finished');
      // Gemini CLI asks before each write in its default mode; Loupe shows each as a card.
      const cards: ApprovalRequestView[] = [];
      await until(async () => {
        for (const a of (await host.handle('approvals.list', undefined)).filter((x) => !answered.has(x.id))) {
          answered.add(a.id);
          cards.push(a);
          await host.handle('approvals.answer', { id: a.id, answer: 'once' });
        }
        return finished();
      }, SLOW, 100);
      expect(finished()!.status).toBe('done');
      expect(cards.map((c) => c.tool)).toEqual(['acp:gemini', 'acp:gemini']);
      expect(cards.every((c) => c.kind === 'edit' && c.summary.startsWith('Gemini CLI:'))).toBe(true);
      expect(await readFile(path.join(ws, 'hello.txt'), 'utf8')).toBe('hello from gemini\n');
      expect(await readFile(path.join(ws, 'notes.md'), 'utf8')).toBe('# Notes\nnew line\n');

      // Written through the log: one modification per write, with the before and after kept.
      const { modifications } = await host.handle('modlog.list', { correlation_id });
      const byFile = Object.fromEntries(modifications.map((m) => [m.file, m]));
      expect(Object.keys(byFile).sort()).toEqual(['hello.txt', 'notes.md']);
      expect(byFile['hello.txt']).toMatchObject({ tool: 'acp:gemini', operation: 'create', session_id, correlation_id });
      expect(byFile['notes.md']).toMatchObject({ tool: 'acp:gemini', operation: 'overwrite' });
      // No group of a snapshot: these were the log's own writes, not found afterwards.
      expect(modifications.every((m) => !m.group_id)).toBe(true);
      const diff = await host.handle('modlog.diff', { modification_id: byFile['notes.md']!.modification_id });
      expect(diff).toMatchObject({ before: '# Notes\nold line\n', after: '# Notes\nnew line\n' });
      // Its answer and its usage reached the chat.
      const chat = chatEvents(events, session_id);
      expect(chat.filter((e) => e.type === 'text_delta').map((e) => (e as { text: string }).text).join('')).toContain('Wrote hello.txt');
      // Rolling one back restores the file.
      await host.handle('modlog.rollback', { modification_id: byFile['notes.md']!.modification_id });
      expect(await readFile(path.join(ws, 'notes.md'), 'utf8')).toBe('# Notes\nold line\n');
    },
    SLOW * 2,
  );
});
