// The person's own edit, saved from the viewer (`file.save`): a modification of tool `person`,
// merged over changes made on disk meanwhile, told to the model, merged under the agent's later
// edit, and never overwritten by an undo of the agent's request — through the host as the app drives it.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatEvent, HostEvents } from '../../shared/contract';
import { startScriptedLlm, type ScriptedLlm } from '../../../test/support/scriptedLlm';
import { tempDir, until, writeTree } from '../../../test/support/tmp';
import { Host } from './host';

let dir: string;
let cleanup: () => Promise<void>;
let host: Host;
let llm: ScriptedLlm;
let chat: { session: string; e: ChatEvent }[];
const ws = () => path.join(dir, 'ws');
const disk = (rel: string) => readFile(path.join(ws(), rel));
const NOTES = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n';

beforeEach(async () => {
  ({ dir, cleanup } = await tempDir('loupe-save-'));
  llm = await startScriptedLlm();
  host = new Host({ transport: 'websocket', configDir: path.join(dir, 'config') });
  chat = [];
  host.onEvent((ch, p) => ch === 'chat.event' && chat.push({ session: (p as HostEvents['chat.event']).session_id, e: (p as HostEvents['chat.event']).event }));
  await writeTree(ws(), { 'notes.txt': NOTES, 'win.txt': '\uFEFFa\r\nb\r\nc\r\n' });
  await host.open(ws());
  await host.handle('settings.save', { base_url: llm.baseURL, model: 'scripted' });
});
afterEach(async () => {
  await host.dispose();
  await llm.close();
  await cleanup();
});

const finished = (correlation: string) => chat.find((c) => c.e.type === 'request_finished' && c.e.correlation_id === correlation);
const call = (name: string, args: unknown) => ({ name, arguments: JSON.stringify(args) });
const toolResults = () => llm.completions.at(-1)!.body.messages!.filter((m) => m.role === 'tool').map((m) => String(m.content));
const lastUserText = () => {
  const m = llm.completions.at(-1)!.body.messages!.filter((x) => x.role === 'user').at(-1)!;
  return typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
};

async function request(text: string, session?: string): Promise<{ session_id: string; correlation_id: string }> {
  const r = await host.handle('chat.send', { text, ...(session ? { session_id: session } : {}) });
  await until(() => finished(r.correlation_id), 20_000);
  return r;
}

describe('file.save: the person edits a file', () => {
  it('writes through the log as the person’s modification, keeping the BOM and each line’s ending', async () => {
    const base = (await host.handle('file.read', { path: 'win.txt' })).content!;
    const saved = await host.handle('file.save', { path: 'win.txt', content: 'a\nB\nc\nd\n', base });
    expect((await disk('win.txt')).toString('utf8')).toBe('\uFEFFa\r\nB\r\nc\r\nd\r\n');
    expect(saved.merged).toBe(false);
    const [m] = (await host.handle('modlog.list', {})).modifications;
    expect(m).toMatchObject({ modification_id: saved.modification_id, tool: 'person', session_id: 'person', operation: 'edit', file: 'win.txt', lines_affected: [2, 4], reason: 'Saved in the editor' });
    // Rolled back like any change.
    await host.handle('modlog.rollback', { modification_id: saved.modification_id! });
    expect((await disk('win.txt')).toString('utf8')).toBe('\uFEFFa\r\nb\r\nc\r\n');
  });

  it('merges with what changed on disk since the editing began, and refuses (writing nothing) on the same lines', async () => {
    const base = (await host.handle('file.read', { path: 'notes.txt' })).content!;
    await writeFile(path.join(ws(), 'notes.txt'), NOTES.replace('seven', 'SEVEN'));
    const merged = await host.handle('file.save', { path: 'notes.txt', content: NOTES.replace('one', 'ONE'), base });
    expect(merged.merged).toBe(true);
    expect(merged.content).toBe(NOTES.replace('one', 'ONE').replace('seven', 'SEVEN'));
    expect((await disk('notes.txt')).toString('utf8')).toBe(merged.content);

    await writeFile(path.join(ws(), 'notes.txt'), 'changed\n');
    await expect(host.handle('file.save', { path: 'notes.txt', content: 'mine\n', base: merged.content })).rejects.toMatchObject({ code: 'FILE_CHANGED_SINCE_READ' });
    expect((await disk('notes.txt')).toString('utf8')).toBe('changed\n');
    // Saving over it is the person's choice; what it replaced stays in the log.
    const over = await host.handle('file.save', { path: 'notes.txt', content: 'mine\n', base: merged.content, overwrite: true });
    expect((await disk('notes.txt')).toString('utf8')).toBe('mine\n');
    await host.handle('modlog.rollback', { modification_id: over.modification_id! });
    expect((await disk('notes.txt')).toString('utf8')).toBe('changed\n');
  });

  it('refuses paths Loupe keeps for itself and paths outside the folder', async () => {
    await expect(host.handle('file.save', { path: '.git/config', content: 'x', base: '' })).rejects.toMatchObject({ code: 'INVALID_PATH' });
    await expect(host.handle('file.save', { path: '../outside.txt', content: 'x', base: '' })).rejects.toMatchObject({ code: 'PATH_OUTSIDE_WORKSPACE' });
  });
});

describe('the person’s save and the agent', () => {
  it('is told at the next request; the agent’s stale edit merges over it; undoing that request leaves the person’s bytes', async () => {
    llm.enqueue({ toolCalls: [call('read_file', { path: 'notes.txt' })] }, { content: 'Read it.' });
    const first = await request('read the notes');

    const base = (await host.handle('file.read', { path: 'notes.txt' })).content!;
    const mine = NOTES.replace('two\n', 'two\nmy own line\n');
    await host.handle('file.save', { path: 'notes.txt', content: mine, base });
    const personBytes = await disk('notes.txt');

    // The model edits from its earlier read: old_str is still there, the person's line is elsewhere.
    llm.enqueue({ toolCalls: [call('edit_file', { path: 'notes.txt', old_str: 'six\n', new_str: 'six and a half\n' })] }, { content: 'Edited.' });
    const second = await request('change six', first.session_id);
    expect(lastUserText()).toContain('The person edited notes.txt in the editor.');
    const result = toolResults().at(-1)!;
    expect(result).toContain('The person edited notes.txt in the editor after your read');
    expect(result).toContain('+my own line');
    expect((await disk('notes.txt')).toString('utf8')).toBe(mine.replace('six\n', 'six and a half\n'));

    const preview = await host.handle('chat.undoPreview', { session_id: first.session_id, correlation_id: second.correlation_id });
    expect(preview.files.map((f) => f.conflict)).toEqual([undefined]);
    await host.handle('chat.undo', { session_id: first.session_id, correlation_id: second.correlation_id, digest: preview.digest, on_conflict: 'refuse' });
    expect((await disk('notes.txt')).equals(personBytes)).toBe(true);
  });

  it('an agent edit of the lines the person changed is refused as before, naming the person’s save', async () => {
    llm.enqueue({ toolCalls: [call('read_file', { path: 'notes.txt' })] }, { content: 'Read it.' });
    const first = await request('read the notes');
    const base = (await host.handle('file.read', { path: 'notes.txt' })).content!;
    const saved = await host.handle('file.save', { path: 'notes.txt', content: NOTES.replace('six', 'SIX'), base });
    llm.enqueue({ toolCalls: [call('edit_file', { path: 'notes.txt', old_str: 'six\n', new_str: '6\n' })] }, { content: 'Could not.' });
    await request('change six', first.session_id);
    const result = toolResults().at(-1)!;
    expect(result).toContain('FILE_CHANGED_SINCE_READ');
    expect(result).toContain(`the person edited the same lines in the editor: ${saved.modification_id}`);
    expect((await disk('notes.txt')).toString('utf8')).toBe(NOTES.replace('six', 'SIX'));
  });

  it('an undo of an earlier agent edit merges around the person’s later save instead of overwriting it', async () => {
    llm.enqueue({ toolCalls: [call('read_file', { path: 'notes.txt' })] }, { toolCalls: [call('edit_file', { path: 'notes.txt', old_str: 'one\n', new_str: 'uno\n' })] }, { content: 'Done.' });
    const first = await request('translate one');
    const base = (await host.handle('file.read', { path: 'notes.txt' })).content!;
    await host.handle('file.save', { path: 'notes.txt', content: base.replace('seven', 'my seven'), base });
    const preview = await host.handle('chat.undoPreview', { session_id: first.session_id, correlation_id: first.correlation_id });
    await host.handle('chat.undo', { session_id: first.session_id, correlation_id: first.correlation_id, digest: preview.digest, on_conflict: 'refuse' });
    expect((await disk('notes.txt')).toString('utf8')).toBe(NOTES.replace('seven', 'my seven'));
  });
});
