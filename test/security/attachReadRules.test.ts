// What the person attaches to a chat message obeys the read rules as read_file does: the `@`
// picker never offers a file a read rule denies or asks about, and naming one directly (as a
// file, as lines of it, through a symbolic link, inside an attached folder) is refused before
// anything reaches the model. Generated covered paths, each holding a unique secret; the
// scripted model server records every byte it is sent. The real Host, index and rules.
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Host } from '../../src/main/host/host';
import type { ChatAttachment } from '../../src/shared/contract';
import { startScriptedLlm, type ScriptedLlm } from '../support/scriptedLlm';
import { tempDir, until } from '../support/tmp';
import { writeUserSettings } from '../support/userSettings';

const RULES = [
  { kind: 'read', pattern: '.env', action: 'deny' },
  { kind: 'read', pattern: 'secrets/**', action: 'deny' },
  { kind: 'read', pattern: '*.pem', action: 'deny' },
  { kind: 'read', pattern: 'private/**', action: 'ask' },
];

const dirs = fc.constantFrom('', 'sub/', 'a/b/', 'Deep/er/');
const cased = (name: string) => fc.array(fc.boolean(), { minLength: name.length, maxLength: name.length }).map((up) => [...name].map((c, i) => (up[i] ? c.toUpperCase() : c)).join(''));
const covered = fc.oneof(
  fc.tuple(dirs, cased('.env')).map(([d, n]) => d + n),
  fc.tuple(cased('secrets'), fc.constantFrom('/a.txt', '/deep/b.json')).map(([a, b]) => a + b),
  fc.tuple(dirs, fc.constantFrom('key', 'id_rsa'), cased('.pem')).map(([d, a, b]) => d + a + b),
  fc.tuple(cased('private'), fc.constantFrom('/a.txt', '/b/c.md')).map(([a, b]) => a + b),
);
// One sample, fixed by its seed, so the files can be laid out once for every check.
const PATHS = [...new Set(fc.sample(covered, { numRuns: 40, seed: 26 }))];
const PUBLIC = ['src/main.ts', 'src/manifest.json', 'sub/notes.md', 'secrets.md', 'env.txt'];

let dir: string;
let cleanup: () => Promise<void>;
let host: Host;
let llm: ScriptedLlm;
const secretOf = (i: number) => `SECRET-${i}-${'q'.repeat(6)}`;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir());
  llm = await startScriptedLlm();
  llm.respondWith(() => ({ content: 'seen' }));
  const ws = path.join(dir, 'ws');
  const write = async (rel: string, text: string) => {
    await mkdir(path.dirname(path.join(ws, rel)), { recursive: true });
    await writeFile(path.join(ws, rel), text);
  };
  for (const [i, p] of PATHS.entries()) {
    await write(p, `${secretOf(i)}\n`);
    // A harmless-looking name that leads to the covered file.
    await mkdir(path.join(ws, 'links'), { recursive: true });
    await symlink(path.join(ws, p), path.join(ws, 'links', `link${i}.txt`));
  }
  for (const p of PUBLIC) await write(p, `public ${p}\n`);
  writeUserSettings(path.join(dir, 'config'), { permissions: RULES, llm: { base_url: llm.baseURL, model: 'scripted' } });
  host = new Host({ transport: 'websocket', configDir: path.join(dir, 'config') });
  await host.open(ws);
  // The index builds in the background: wait for it to know the public files.
  await until(async () => (await host.handle('chat.mentions', { query: 'manifest' })).items.length > 0, 20_000);
}, 60_000);
afterAll(async () => {
  await host?.dispose();
  await llm?.close();
  await cleanup?.();
});

const sent = () => JSON.stringify(llm.completions.map((r) => r.body.messages));
const send = (attachments: ChatAttachment[]) => host.handle('chat.send', { text: 'look at this', attachments });

describe('attachments and the read rules', () => {
  it('the @ picker offers public files and folders, never a covered file or a link to one', async () => {
    const queries = ['', 'env', '.env', 'secret', 'pem', 'private', 'link', 'a.txt', 'deep', ...PATHS.map((p) => p.slice(p.lastIndexOf('/') + 1))];
    for (const query of queries) {
      const { items } = await host.handle('chat.mentions', { query, limit: 50 });
      const offered = items.map((i) => i.path.toLowerCase());
      for (const p of PATHS) expect(offered, `query ${JSON.stringify(query)}`).not.toContain(p.toLowerCase());
      expect(items.filter((i) => i.kind === 'dir').map((i) => i.path.toLowerCase())).not.toContain('secrets');
    }
    expect((await host.handle('chat.mentions', { query: 'src/ma' })).items[0]).toEqual({ kind: 'file', path: 'src/main.ts' });
    expect((await host.handle('chat.mentions', { query: 'sub' })).items).toContainEqual({ kind: 'dir', path: 'sub' });
  });

  it('refuses a covered file named directly, as lines, or through a link, and sends nothing', async () => {
    for (const [i, p] of PATHS.entries()) {
      const named: Exclude<ChatAttachment, { kind: 'image' }>[] = [{ kind: 'file', path: p }, { kind: 'selection', path: p, lines: [1, 1] }, { kind: 'file', path: `links/link${i}.txt` }];
      for (const a of named) {
        await expect(send([a]), `${a.kind} ${a.path}`).rejects.toMatchObject({ code: 'PERMISSION_DENIED', message: expect.stringMatching(/cannot be attached: a read rule (denies|asks before)/) });
      }
    }
    expect(llm.completions).toHaveLength(0);
    expect(sent()).not.toMatch(/SECRET-/);
  });

  it('an attached folder lists its public files only; a public file’s content reaches the model', async () => {
    const { session_id } = await send([{ kind: 'dir', path: 'sub' }, { kind: 'dir', path: '' }, { kind: 'file', path: 'src/main.ts' }]);
    await until(async () => (await host.handle('chat.session', { id: session_id })).entries.some((e) => e.type === 'request_finished'), 20_000);
    const body = sent();
    expect(body).toContain('public src/main.ts');
    expect(body).toContain('<attached_folder path=\\"sub\\">');
    expect(body).toContain('sub/notes.md');
    expect(body).not.toMatch(/SECRET-/);
    for (const p of PATHS) expect(body).not.toContain(`\\n${p}\\n`);
    const view = await host.handle('chat.session', { id: session_id });
    expect(view.entries[0]).toMatchObject({ type: 'user_message', text: 'look at this', attachments: [{ kind: 'dir', label: 'sub' }, { kind: 'dir', label: '.' }, { kind: 'file', label: 'src/main.ts', path: 'src/main.ts' }] });
  });
});
