// Attachments through the real Host as any client sends them (the app, a `loupe serve` client):
// a text-only model refuses an image before anything is sent, whatever the renderer did; a
// long file is cut at its cap and says so; lines of a file arrive as those lines.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedLlm, type ScriptedLlm } from '../../../test/support/scriptedLlm';
import { tempDir, until } from '../../../test/support/tmp';
import { writeUserSettings } from '../../../test/support/userSettings';
import { ATTACH_FILE_CHARS, THUMBNAIL_MAX_CHARS, thumbnailOf } from './attachments';
import { Host } from './host';

let dir: string;
let cleanup: () => Promise<void>;
let host: Host;
let llm: ScriptedLlm;
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir());
  llm = await startScriptedLlm();
  llm.respondWith(() => ({ content: 'seen' }));
  const ws = path.join(dir, 'ws');
  await mkdir(ws, { recursive: true });
  await writeFile(path.join(ws, 'long.txt'), 'x'.repeat(ATTACH_FILE_CHARS + 1234));
  await writeFile(path.join(ws, 'lines.txt'), Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n'));
  writeUserSettings(path.join(dir, 'config'), { llm: { base_url: llm.baseURL, model: 'scripted', models: { scripted: { images: false } } } });
  host = new Host({ transport: 'websocket', configDir: path.join(dir, 'config') });
  await host.open(ws);
}, 60_000);
afterAll(async () => {
  await host?.dispose();
  await llm?.close();
  await cleanup?.();
});

const finished = async (id: string) => {
  await until(async () => (await host.handle('chat.session', { id })).entries.some((e) => e.type === 'request_finished'), 20_000);
  return llm.completions.at(-1)!.body.messages!.filter((m) => m.role === 'user').at(-1)!.content as string;
};

describe('attachments sent to the host', () => {
  it('a text-only model refuses an image with the reason and the fix, and nothing is sent', async () => {
    const before = llm.completions.length;
    await expect(host.handle('chat.send', { text: 'what is this?', attachments: [{ kind: 'image', name: 'shot.png', media_type: 'image/png', data: PNG }] })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/scripted is marked as text-only, so the image "shot\.png" was not sent.*Settings › Models/),
    });
    expect(llm.completions.length).toBe(before);
  });

  it('cuts a long file at its cap and says where; lines of a file arrive as those lines', async () => {
    const { session_id } = await host.handle('chat.send', { text: 'read these', attachments: [{ kind: 'file', path: 'long.txt' }, { kind: 'selection', path: 'lines.txt', lines: [3, 5] }] });
    const sent = await finished(session_id);
    expect(sent).toContain(`${'x'.repeat(ATTACH_FILE_CHARS)}\n`);
    expect(sent).not.toContain('x'.repeat(ATTACH_FILE_CHARS + 1));
    expect(sent).toContain(`[cut at 50,000 of ${(ATTACH_FILE_CHARS + 1234).toLocaleString('en-US')} characters; read_file shows the rest]`);
    expect(sent).toContain('<attached_file path="lines.txt" lines="3-5">\n```\nline 3\nline 4\nline 5\n```');
    const view = await host.handle('chat.session', { id: session_id });
    expect(view.entries[0]).toMatchObject({ attachments: [{ kind: 'file', label: 'long.txt', truncated: true, size: ATTACH_FILE_CHARS }, { kind: 'selection', label: 'lines.txt', lines: [3, 5] }] });
  });
});

describe('an image\'s thumbnail kept with the sent message', () => {
  it('keeps a small PNG, JPEG or WebP data URL and drops anything else', () => {
    for (const ok of ['data:image/png;base64,iVBORw0KGgo=', 'data:image/jpeg;base64,/9j/4AAQ', 'data:image/webp;base64,UklGRg==']) expect(thumbnailOf(ok)).toBe(ok);
    const bad = [
      undefined,
      42,
      'data:image/svg+xml;base64,PHN2Zz4=',
      'data:text/html;base64,PGI+',
      'javascript:alert(1)',
      'https://example.com/a.png',
      'data:image/png;base64,not base64!',
      `data:image/png;base64,${'A'.repeat(THUMBNAIL_MAX_CHARS)}`,
    ];
    for (const v of bad) expect(thumbnailOf(v)).toBeUndefined();
  });
});
