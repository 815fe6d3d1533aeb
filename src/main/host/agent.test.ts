import { readFile, stat, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatEvent, EventChannel, HostEvents } from '../../shared/contract';
import { pieces, startScriptedLlm, type ScriptedLlm } from '../../../test/support/scriptedLlm';
import { tempDir, until, writeTree } from '../../../test/support/tmp';
import { writeUserSettings } from '../../../test/support/userSettings';
import { foldTranscript } from '../../renderer/store/chatFold';
import { Host } from './host';

let dir: string;
let cleanup: () => Promise<void>;
let host: Host;
let llm: ScriptedLlm;
let events: { ch: EventChannel; p: unknown }[];
const saved: Record<string, string | undefined> = {};
const ENV = ['OPENAI_BASE_URL', 'OPENAI_API_KEY', 'LOUPE_MODEL', 'LOUPE_CONTEXT_TOKENS'];

const chat = () => events.filter((e) => e.ch === 'chat.event').map((e) => (e.p as HostEvents['chat.event']).event);
const finished = () => chat().find((e): e is Extract<ChatEvent, { type: 'request_finished' }> => e.type === 'request_finished');

beforeEach(async () => {
  for (const k of ENV) {
    saved[k] = process.env[k];
    delete process.env[k];
  }
  ({ dir, cleanup } = await tempDir());
  llm = await startScriptedLlm();
  // These tests walk through the approval cards, so commands ask: the sandbox is off.
  writeUserSettings(path.join(dir, 'config'), { sandbox: 'off' });
  host = new Host({ transport: 'websocket', configDir: path.join(dir, 'config') });
  events = [];
  host.onEvent((ch, p) => events.push({ ch, p }));
  await writeTree(path.join(dir, 'ws'), { 'a.txt': 'hello\n' });
  await host.open(path.join(dir, 'ws'));
});
afterEach(async () => {
  await host.dispose();
  await llm.close();
  await cleanup();
  for (const k of ENV) if (saved[k] === undefined) delete process.env[k];
  else process.env[k] = saved[k];
});

describe('Host agent channels', () => {
  it('without a model, chat.send answers LLM_ERROR saying how to connect one', async () => {
    await expect(host.handle('chat.send', { text: 'hi' })).rejects.toMatchObject({ code: 'LLM_ERROR', message: expect.stringMatching(/Settings/) });
    expect((await host.handle('settings.get', undefined)).configured).toBe(false);
  });

  it('saves settings 0600, keeps the permissions key, never returns the key', async () => {
    const file = path.join(dir, 'config', 'settings.json');
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, JSON.stringify({ permissions: [{ kind: 'bash', pattern: 'ls', action: 'allow' }] }));
    const view = await host.handle('settings.save', { base_url: llm.baseURL, model: 'scripted', api_key: 'sk-secret' });
    expect(view).toMatchObject({ base_url: llm.baseURL, model: 'scripted', has_api_key: true, configured: true, source: 'settings' });
    expect(JSON.stringify(view)).not.toContain('sk-secret');
    const onDisk = JSON.parse(await readFile(file, 'utf8'));
    expect(onDisk.permissions).toEqual([{ kind: 'bash', pattern: 'ls', action: 'allow' }]);
    expect(onDisk.llm).toMatchObject({ api_key: 'sk-secret', model: 'scripted' });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    // Saving without a key keeps it.
    await host.handle('settings.save', { base_url: llm.baseURL, model: 'scripted' });
    expect(JSON.parse(await readFile(file, 'utf8')).llm.api_key).toBe('sk-secret');
    expect(await host.handle('settings.models', undefined)).toEqual({ models: ['scripted'] });
    // Test connection lists the models, then asks the model one tiny question.
    llm.enqueue({ content: 'ready' });
    expect(await host.handle('settings.test', undefined)).toMatchObject({ ok: true, models: ['scripted'], reply: 'ready' });
    expect(llm.completions.at(-1)!.body).toMatchObject({ model: 'scripted', messages: [{ role: 'user', content: expect.stringMatching(/ready/) }] });
    // A model that does not answer is a failed test, with the server's words.
    llm.enqueue({ status: 500 });
    expect(await host.handle('settings.test', undefined)).toMatchObject({ ok: false, error: expect.stringMatching(/500/) });
  });

  it('settings show what was learned of the endpoint: a Mistral-like server that refuses stream_options', async () => {
    const mistral = await startScriptedLlm([{ content: 'Hello.' }], { server: 'mistral' });
    try {
      await host.handle('settings.save', { base_url: mistral.baseURL, model: 'scripted' });
      expect((await host.handle('settings.get', undefined)).endpoint_profile).toBeUndefined();
      await host.handle('chat.send', { text: 'hi' });
      await until(() => finished(), 10_000);
      expect(finished()).toMatchObject({ status: 'done', text: 'Hello.' });
      expect((await host.handle('settings.get', undefined)).endpoint_profile).toBe('no stream_options');
    } finally {
      await mistral.close();
    }
  });

  it('reasoning streams as its own events and comes back, collapsed, in a resumed session', async () => {
    const deepseek = await startScriptedLlm([{ content: 'Hello.', reasoning: 'Weighing a greeting.' }], { server: 'deepseek' });
    try {
      await host.handle('settings.save', { base_url: deepseek.baseURL, model: 'scripted' });
      const { session_id } = await host.handle('chat.send', { text: 'hi' });
      await until(() => finished(), 10_000);
      expect(finished()).toMatchObject({ status: 'done', text: 'Hello.' });
      expect(chat().filter((e) => e.type === 'reasoning_delta').map((e) => (e as { text: string }).text).join('')).toBe('Weighing a greeting.');
      await until(async () => (await host.handle('chat.sessions', undefined)).find((s) => s.id === session_id && s.requests === 1));
      const view = await host.handle('chat.session', { id: session_id });
      expect(foldTranscript(view.entries).map(({ id: _id, ...rest }) => rest)).toEqual([
        // The request it started, for "Undo changes from here".
        { kind: 'user', text: 'hi', correlationId: expect.stringMatching(/^req-/) },
        { kind: 'reasoning', text: 'Weighing a greeting.', streaming: false },
        { kind: 'assistant', text: 'Hello.', streaming: false },
      ]);
    } finally {
      await deepseek.close();
    }
  });

  it('sends a fast stream as a few joined deltas, and a session opened mid-stream neither misses nor repeats a token', async () => {
    await host.handle('settings.save', { base_url: llm.baseURL, model: 'scripted' });
    const answer = Array.from({ length: 300 }, (_, i) => `w${i}`).join(' ');
    llm.enqueue({ content: answer, frameDelayMs: 1 });
    const { session_id } = await host.handle('chat.send', { text: 'stream' });
    const deltas = () => chat().filter((e) => e.type === 'text_delta').length;
    await until(() => deltas() > 0, 10_000);
    const view = await host.handle('chat.session', { id: session_id });
    const at = events.length;
    await until(() => finished(), 10_000);
    const shown = foldTranscript(view.entries).find((i) => i.kind === 'assistant');
    const after = events.slice(at).flatMap((e) => (e.ch === 'chat.event' ? [(e.p as HostEvents['chat.event']).event] : [])).filter((e) => e.type === 'text_delta');
    expect((shown && 'text' in shown ? shown.text : '') + after.map((e) => e.text).join('')).toBe(answer);
    expect(chat().filter((e) => e.type === 'text_delta').map((e) => (e as { text: string }).text).join('')).toBe(answer);
    // One SSE frame per 7-9 characters, a millisecond or more apart: joined into far fewer events.
    expect(deltas()).toBeLessThan(pieces(answer).length / 3);
  });

  it('streams a request as chat.event, asks for bash through approvals, and resumes the session', async () => {
    await host.handle('settings.save', { base_url: llm.baseURL, model: 'scripted' });
    llm.enqueue({ toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'echo from-bash', description: 'say' }) }] }, { content: 'All done.' });
    const { session_id, correlation_id } = await host.handle('chat.send', { text: 'run it' });
    const asked = await until(() => events.find((e) => e.ch === 'approvals.changed' && (e.p as HostEvents['approvals.changed']).requests.length));
    const req = (asked.p as HostEvents['approvals.changed']).requests[0];
    expect(req).toMatchObject({ kind: 'bash', tool: 'bash', rule: null, correlation_id });
    // The question names the call it belongs to, so the chat binds it to that card by id.
    const started = chat().find((e) => e.type === 'tool_call_started');
    expect(started && 'call_id' in started && req.call_id === started.call_id).toBe(true);
    expect(await host.handle('approvals.list', undefined)).toHaveLength(1);
    expect(await host.handle('approvals.answer', { id: req.id, answer: 'once' })).toEqual({ answered: true });
    await until(() => finished(), 10_000);
    expect(finished()).toMatchObject({ status: 'done', text: 'All done.', correlation_id });
    const done = chat().find((e) => e.type === 'tool_call_finished');
    expect(done).toMatchObject({ tool: 'bash', ok: true, output: expect.stringContaining('from-bash') });
    expect(await host.handle('approvals.list', undefined)).toEqual([]);
    await until(async () => (await host.handle('chat.sessions', undefined)).find((s) => s.id === session_id && s.requests === 1));
    const view = await host.handle('chat.session', { id: session_id });
    expect(foldTranscript(view.entries).map((i) => i.kind)).toEqual(['user', 'tool', 'assistant']);
    expect(view.session.title).toBe('run it');
  });

  it('a reopened session folds to what the live events showed: failed calls, errors, data, the denial by code', async () => {
    await host.handle('settings.save', { base_url: llm.baseURL, model: 'scripted' });
    llm.enqueue(
      {
        toolCalls: [
          { name: 'read_file', arguments: JSON.stringify({ path: 'missing.txt' }) },
          { name: 'write_file', arguments: JSON.stringify({ path: 'new.txt', content: 'fresh\n' }) },
          { name: 'bash', arguments: JSON.stringify({ command: 'echo no', description: 'x' }) },
        ],
      },
      { content: 'Finished.' },
    );
    const { session_id } = await host.handle('chat.send', { text: 'do three things' });
    const req = await until(async () => (await host.handle('approvals.list', undefined))[0]);
    await host.handle('approvals.answer', { id: req.id, answer: 'deny', message: 'not now' });
    await until(() => finished(), 10_000);
    const live = foldTranscript([{ type: 'user_message', text: 'do three things' }, ...chat()]);
    const calls = chat().filter((e): e is Extract<ChatEvent, { type: 'tool_call_finished' }> => e.type === 'tool_call_finished');
    expect(calls.map((c) => [c.tool, c.ok, c.error?.code])).toEqual([
      ['read_file', false, 'FILE_NOT_FOUND'],
      ['write_file', true, undefined],
      ['bash', false, 'PERMISSION_DENIED'],
    ]);
    expect(calls[2].error?.details).toEqual({ denied_by: 'user', message: 'not now' });
    expect(calls[1].data?.modification_id).toMatch(/^mod-/);

    // A new host reads the session from disk, as a reloaded page after a restart would.
    await until(async () => (await host.handle('chat.sessions', undefined)).find((s) => s.id === session_id && s.requests === 1));
    await host.dispose();
    host = new Host({ transport: 'websocket', configDir: path.join(dir, 'config') });
    await host.open(path.join(dir, 'ws'));
    const reloaded = foldTranscript((await host.handle('chat.session', { id: session_id })).entries);
    const norm = (items: ReturnType<typeof foldTranscript>) => items.map((i) => (i.kind === 'tool' ? i : { ...i, id: '' }));
    expect(norm(reloaded)).toEqual(norm(live));
    const tools = reloaded.filter((i) => i.kind === 'tool');
    expect(tools.map((t) => t.status)).toEqual(['error', 'done', 'error']);
    // The card's line is a sentence for the person; the code stays beside it.
    expect(tools[0].errorCode).toBe('FILE_NOT_FOUND');
    expect(tools[0].error).not.toMatch(/^FILE_NOT_FOUND/);
    expect(tools[2]).toMatchObject({ errorCode: 'PERMISSION_DENIED', deniedBy: 'user', error: 'You denied it, and told the agent: "not now"' });
    expect(tools[1].data?.modification_id).toBe(calls[1].data?.modification_id);
  });

  it('"allow always" with an edited pattern saves that rule; stop aborts a waiting request', async () => {
    await host.handle('settings.save', { base_url: llm.baseURL, model: 'scripted' });
    llm.enqueue({ toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'echo one', description: 'x' }) }] }, { content: 'ok' });
    const first = await host.handle('chat.send', { text: 'a' });
    const id = (await until(async () => (await host.handle('approvals.list', undefined))[0])).id;
    await host.handle('approvals.answer', { id, answer: 'always', patterns: ['echo *'] });
    await until(() => finished());
    const config = JSON.parse(await readFile(path.join(dir, 'ws', '.loupe', 'config.json'), 'utf8'));
    expect(config.permissions).toContainEqual({ kind: 'bash', pattern: 'echo *', action: 'allow' });

    events = [];
    llm.enqueue({ toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'touch x', description: 'x' }) }] });
    await host.handle('chat.send', { session_id: first.session_id, text: 'b' });
    await until(async () => (await host.handle('approvals.list', undefined)).length);
    await host.handle('chat.stop', { session_id: first.session_id });
    expect(finished()).toMatchObject({ status: 'aborted' });
    expect(await host.handle('approvals.list', undefined)).toEqual([]);
  });
});

describe('sandbox status', () => {
  it('settings.sandbox says whether commands run sandboxed, and an untrusted "off" is ignored and named', async () => {
    writeUserSettings(path.join(dir, 'config'), {});
    await writeTree(path.join(dir, 'ws'), { '.loupe/config.json': JSON.stringify({ sandbox: 'off' }) });
    const s = await host.handle('settings.sandbox', undefined);
    expect(s).toMatchObject({ mode: 'auto', ignored_off: true });
    // Whether a sandbox works depends on the machine; when it does not, the reason says why.
    if (!s.active) expect(s.reason).toEqual(expect.any(String));
  });
});

describe('edits mode', () => {
  it('settings.setEditsMode writes edits.mode into .loupe/config.json, keeping other keys, and the next edit asks', async () => {
    const cfg = path.join(dir, 'ws', '.loupe', 'config.json');
    await writeTree(path.join(dir, 'ws'), { '.loupe/config.json': JSON.stringify({ permissions: [{ kind: 'bash', pattern: 'ls', action: 'allow' }], tests: { js: 'node t.js' } }) });
    expect(await host.handle('settings.editsMode', undefined)).toEqual({ mode: 'review' });
    expect(await host.handle('settings.setEditsMode', { mode: 'ask' })).toEqual({ mode: 'ask' });
    const doc = JSON.parse(await readFile(cfg, 'utf8'));
    expect(doc).toEqual({ permissions: [{ kind: 'bash', pattern: 'ls', action: 'allow' }], tests: { js: 'node t.js' }, edits: { mode: 'ask' } });

    await host.handle('settings.save', { base_url: llm.baseURL, model: 'scripted' });
    llm.enqueue(
      { toolCalls: [{ name: 'read_file', arguments: JSON.stringify({ path: 'a.txt' }) }] },
      { toolCalls: [{ name: 'edit_file', arguments: JSON.stringify({ path: 'a.txt', old_str: 'hello', new_str: 'bye' }) }] },
      { content: 'ok' },
    );
    const sent = await host.handle('chat.send', { text: 'edit' });
    const card = await until(async () => (await host.handle('approvals.list', undefined))[0]);
    expect(card).toMatchObject({ kind: 'edit', tool: 'edit_file', edit: { path: 'a.txt', before: 'hello\n', after: 'bye\n', language: 'plaintext' } });
    expect(await readFile(path.join(dir, 'ws', 'a.txt'), 'utf8')).toBe('hello\n');
    await host.handle('chat.stop', { session_id: sent.session_id });

    await expect(host.handle('settings.setEditsMode', { mode: 'sometimes' } as never)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await writeFile(cfg, '{ "edits": ');
    await expect(host.handle('settings.setEditsMode', { mode: 'review' })).rejects.toThrow(/could not be updated: .*config\.json:1:12: /);
    expect(await readFile(cfg, 'utf8')).toBe('{ "edits": ');
  });
});

describe('switching folders', () => {
  it('stops the old folder\'s requests, so no question is left waiting unseen', async () => {
    await host.handle('settings.save', { base_url: llm.baseURL, model: 'scripted' });
    llm.enqueue({ toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'echo hi', description: 'x' }) }] });
    await host.handle('chat.send', { text: 'go' });
    await until(async () => (await host.handle('approvals.list', undefined)).length);
    await writeTree(path.join(dir, 'other'), { 'b.txt': 'b\n' });
    await host.open(path.join(dir, 'other'));
    expect(finished()).toMatchObject({ status: 'aborted' });
    expect(await host.handle('approvals.list', undefined)).toEqual([]);
  });
});

// ---- one owner per open folder: the review pane and the agent write through one log (one
// per-file lock orders them), and what the gate could not do as asked reaches the person.

const ws = () => path.join(dir, 'ws');
const finishedFor = (correlationId: string) =>
  chat().find((e): e is Extract<ChatEvent, { type: 'request_finished' }> => e.type === 'request_finished' && e.correlation_id === correlationId);
const toolResults = () => chat().filter((e): e is Extract<ChatEvent, { type: 'tool_call_finished' }> => e.type === 'tool_call_finished');

async function agentEdit(oldStr: string, newStr: string): Promise<string> {
  llm.enqueue(
    { toolCalls: [{ name: 'read_file', arguments: JSON.stringify({ path: 'a.txt' }) }] },
    { toolCalls: [{ name: 'edit_file', arguments: JSON.stringify({ path: 'a.txt', old_str: oldStr, new_str: newStr }) }] },
    { content: 'ok' },
  );
  return (await host.handle('chat.send', { text: `edit ${oldStr}` })).correlation_id;
}

describe('one modification log per open folder', () => {
  it('a review-pane rollback and an agent edit of one file, started together, both land in order', async () => {
    await writeTree(ws(), { 'a.txt': 'one\ntwo\nthree\n' });
    await host.handle('settings.save', { base_url: llm.baseURL, model: 'scripted' });
    const first = await agentEdit('one', 'ONE');
    await until(() => finishedFor(first), 10_000);
    const m1 = (await host.handle('modlog.list', {})).modifications[0].modification_id;

    // The next edit waits for approval while holding the file's lock; the rollback starts then.
    await host.handle('settings.setEditsMode', { mode: 'ask' });
    const second = await agentEdit('three', 'THREE');
    const card = await until(async () => (await host.handle('approvals.list', undefined))[0], 10_000);
    let rolledBack = false;
    const rollback = host.handle('modlog.rollback', { modification_id: m1 }).finally(() => (rolledBack = true));
    await new Promise((r) => setTimeout(r, 300));
    expect(rolledBack, 'the rollback waits for the edit holding the lock').toBe(false);
    await host.handle('approvals.answer', { id: card.id, answer: 'once' });
    const out = await rollback;
    expect((await until(() => finishedFor(second), 10_000)).status).toBe('done');

    expect(toolResults().filter((r) => r.tool === 'edit_file').map((r) => r.ok)).toEqual([true, true]);
    // Nothing lost: the edit of line 3 and the reversal of line 1 are both in the file.
    expect(await readFile(path.join(ws(), 'a.txt'), 'utf8')).toBe('one\ntwo\nTHREE\n');
    const log = (await host.handle('modlog.list', {})).modifications;
    const ids = log.map((m) => m.modification_id).sort();
    expect(ids).toHaveLength(3);
    const [, edit, undo] = ids.map((id) => log.find((m) => m.modification_id === id)!);
    expect(edit).toMatchObject({ tool: 'edit_file', operation: 'edit' });
    expect(undo).toMatchObject({ modification_id: out.rollback_id, operation: 'rollback', rolls_back: m1 });
  });
});

describe('gate warnings', () => {
  it('a failed "allow always" save reaches the person as a notice', async () => {
    await host.handle('settings.save', { base_url: llm.baseURL, model: 'scripted' });
    await writeTree(ws(), { '.loupe/config.json': '{ "edits": ' });
    llm.enqueue({ toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'echo hi', description: 'x' }) }] }, { content: 'ok' });
    const { correlation_id } = await host.handle('chat.send', { text: 'go' });
    const card = await until(async () => (await host.handle('approvals.list', undefined))[0], 10_000);
    await host.handle('approvals.answer', { id: card.id, answer: 'always' });
    await until(() => finishedFor(correlation_id), 10_000);
    const notices = events.filter((e) => e.ch === 'workspace.notice').map((e) => (e.p as HostEvents['workspace.notice']).message);
    // The broken file is said once as a config problem; the unsaved answer once as a warning.
    expect(notices).toEqual([expect.stringMatching(/^\.loupe\/config\.json:1:12: /), expect.stringMatching(/"Allow always" is kept for this session only: .*config\.json could not be updated/)]);
    await writeFile(path.join(ws(), '.loupe', 'config.json'), '{}');
  });
});
