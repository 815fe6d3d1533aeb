// What the person undoes or rolls back is told to the model at the next request of the session it
// concerns — checked on the scripted model's side, through the host as the app drives it.
import { execFileSync } from 'node:child_process';
import { access, readFile, writeFile } from 'node:fs/promises';
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
const exists = (rel: string) => access(path.join(ws(), rel)).then(() => true, () => false);

beforeEach(async () => {
  ({ dir, cleanup } = await tempDir('loupe-notes-'));
  llm = await startScriptedLlm();
  host = new Host({ transport: 'websocket', configDir: path.join(dir, 'config') });
  chat = [];
  host.onEvent((ch, p) => ch === 'chat.event' && chat.push({ session: (p as HostEvents['chat.event']).session_id, e: (p as HostEvents['chat.event']).event }));
  await writeTree(ws(), { 'README.md': '# cart\n', 'test/cart.test.ts': 'test("x", () => {});\n', 'src/cart.ts': 'export const total = 1;\n' });
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
/** The user message the model got last. */
const lastUserText = () => {
  const messages = llm.completions.at(-1)!.body.messages!;
  const m = messages.filter((x) => x.role === 'user').at(-1)!;
  return typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
};

async function request(text: string, session?: string): Promise<{ session_id: string; correlation_id: string }> {
  const r = await host.handle('chat.send', { text, ...(session ? { session_id: session } : {}) });
  await until(() => finished(r.correlation_id), 20_000);
  return r;
}

describe('the model is told what the person changed', () => {
  it('after "Undo changes from here" on a request that deleted two files, the next request says they are back', async () => {
    llm.enqueue(
      { toolCalls: [call('read_file', { path: 'README.md' }), call('read_file', { path: 'test/cart.test.ts' })] },
      { toolCalls: [call('bash', { command: 'rm README.md test/cart.test.ts', description: 'delete them' })] },
      { content: 'Deleted both.' },
    );
    const first = await request('delete the readme and the test');
    expect(await exists('README.md')).toBe(false);

    const preview = await host.handle('chat.undoPreview', { session_id: first.session_id, correlation_id: first.correlation_id });
    await host.handle('chat.undo', { session_id: first.session_id, correlation_id: first.correlation_id, digest: preview.digest, on_conflict: 'refuse' });
    expect(await readFile(path.join(ws(), 'README.md'), 'utf8')).toBe('# cart\n');

    llm.enqueue({ content: 'I see.' });
    await request('what changed?', first.session_id);
    const told = lastUserText();
    expect(told).toContain(`The person undid request ${first.correlation_id}: README.md restored, test/cart.test.ts restored.`);
    expect(told.endsWith('what changed?')).toBe(true);
    // Said once: the request after that one is told nothing new.
    llm.enqueue({ content: 'ok' });
    await request('and now?', first.session_id);
    expect(lastUserText()).toBe('and now?');
  });

  it('a review-pane rollback and a reverted hunk reach only the session whose change it was', async () => {
    llm.enqueue({ toolCalls: [call('read_file', { path: 'src/cart.ts' })] }, { toolCalls: [call('edit_file', { path: 'src/cart.ts', old_str: 'total = 1', new_str: 'total = 2' })] }, { content: 'Done.' });
    const mine = await request('make the total 2');
    llm.enqueue({ content: 'hi' });
    const other = await request('unrelated');
    const edit = (await host.handle('modlog.list', {})).modifications.find((m) => m.tool === 'edit_file')!;
    await host.handle('modlog.rollback', { modification_id: edit.modification_id });

    llm.enqueue({ content: 'noted' });
    await request('next', other.session_id);
    expect(lastUserText()).toBe('next');
    llm.enqueue({ content: 'noted' });
    await request('next', mine.session_id);
    expect(lastUserText()).toContain('The person rolled back your change to src/cart.ts in the review pane (changed back).');
    // The chat shows what the model was told.
    expect(chat.some((c) => c.session === mine.session_id && c.e.type === 'notice' && c.e.text.startsWith('Told the agent: The person rolled back'))).toBe(true);
  });

  it('Redo from the chat previews like undo, keeps a file the person changed since, and is told', async () => {
    llm.enqueue(
      { toolCalls: [call('read_file', { path: 'README.md' }), call('read_file', { path: 'test/cart.test.ts' })] },
      { toolCalls: [call('bash', { command: 'rm README.md test/cart.test.ts', description: 'delete them' })] },
      { content: 'Deleted both.' },
    );
    const first = await request('delete the readme and the test');
    const ids = { session_id: first.session_id, correlation_id: first.correlation_id };
    await expect(host.handle('chat.redoPreview', ids)).rejects.toThrow(/Nothing to redo/);
    const undo = await host.handle('chat.undoPreview', ids);
    await host.handle('chat.undo', { ...ids, digest: undo.digest, on_conflict: 'refuse' });
    // The person edits one of the restored files: redoing would delete their line.
    await writeFile(path.join(ws(), 'README.md'), '# cart\nmine\n');

    const redo = await host.handle('chat.redoPreview', ids);
    expect(redo.files.map((f) => [f.file, Boolean(f.conflict)])).toEqual([
      ['README.md', true],
      ['test/cart.test.ts', false],
    ]);
    expect(redo.files[1]).toMatchObject({ before: 'test("x", () => {});\n', after: null });
    expect(await exists('test/cart.test.ts')).toBe(true);
    await expect(host.handle('chat.redo', { ...ids, digest: redo.digest, on_conflict: 'refuse' })).rejects.toMatchObject({ code: 'ROLLBACK_CONFLICT' });
    await expect(host.handle('chat.redo', { ...ids, digest: 'stale', on_conflict: 'skip' })).rejects.toThrow();
    const done = await host.handle('chat.redo', { ...ids, digest: redo.digest, on_conflict: 'skip' });
    expect(done).toMatchObject({ files: ['test/cart.test.ts'], skipped: [{ file: 'README.md' }] });
    expect(await exists('test/cart.test.ts')).toBe(false);
    expect(await readFile(path.join(ws(), 'README.md'), 'utf8')).toBe('# cart\nmine\n');

    llm.enqueue({ content: 'I see.' });
    await request('what now?', first.session_id);
    expect(lastUserText()).toContain(`The person redid request ${first.correlation_id} (its undo was reversed): test/cart.test.ts deleted.`);
  });

  it('a switch of git branch between two requests is told; the same branch again is not', async () => {
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=e@x', '-c', 'user.name=E', ...args], { cwd: ws() });
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-qm', 'init');
    llm.enqueue({ content: 'one' });
    const first = await request('first');
    git('checkout', '-q', '-b', 'feature');
    llm.enqueue({ content: 'two' });
    await request('second', first.session_id);
    expect(lastUserText()).toContain('The person switched the git branch from main to feature: files may have changed with it.');
    llm.enqueue({ content: 'three' });
    await request('third', first.session_id);
    expect(lastUserText()).toBe('third');
  });
});
