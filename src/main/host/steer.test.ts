// Steering a conversation through the host's channels: queued messages (edited, removed, sent
// next or sent now at a tool boundary), edit and resend forking the conversation with the old
// branch kept and shown again, and plan mode's plan executed with its correlation id.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatEvent, EventChannel, HostEvents } from '../../shared/contract';
import { startScriptedLlm, userPrompt, type RecordedRequest, type ScriptedLlm, type ScriptedReply } from '../../../test/support/scriptedLlm';
import { tempDir, until, writeTree } from '../../../test/support/tmp';
import { writeUserSettings } from '../../../test/support/userSettings';
import { foldTranscript } from '../../renderer/store/chatFold';
import { Host } from './host';

let dir: string;
let cleanup: () => Promise<void>;
let host: Host;
let llm: ScriptedLlm;
let events: { ch: EventChannel; p: unknown }[];
let ws: string;

const chat = () => events.filter((e) => e.ch === 'chat.event').map((e) => (e.p as HostEvents['chat.event']).event);
const finishedCount = () => chat().filter((e) => e.type === 'request_finished').length;
const queued = () => events.filter((e) => e.ch === 'chat.queued').map((e) => (e.p as HostEvents['chat.queued']).messages).at(-1) ?? [];
const lastUser = (req: RecordedRequest) => [...(req.body.messages ?? [])].reverse().find((m) => m.role === 'user')?.content;
const call = (id: string, name: string, args: unknown) => ({ id, name, arguments: JSON.stringify(args) });

beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  writeUserSettings(path.join(dir, 'config'), { sandbox: 'off' });
  host = new Host({ transport: 'websocket', configDir: path.join(dir, 'config') });
  events = [];
  host.onEvent((ch, p) => events.push({ ch, p }));
  ws = path.join(dir, 'ws');
  await writeTree(ws, { 'a.txt': 'hello\n' });
  await host.open(ws);
});
afterEach(async () => {
  await host.dispose();
  await llm?.close();
  await cleanup();
});

async function connect(script: ScriptedReply[] | ((req: RecordedRequest) => ScriptedReply | Promise<ScriptedReply>)) {
  llm = await startScriptedLlm(script);
  await host.handle('settings.save', { base_url: llm.baseURL, model: 'scripted' });
}

describe('queued messages', () => {
  it('wait while the agent works, can be edited and removed, and go one by one as the next requests', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await connect(async (req) => {
      if (userPrompt(req) === 'first') await held;
      return { content: `Answer to ${String(lastUser(req))}.` };
    });
    const { session_id } = await host.handle('chat.send', { text: 'first' });
    const a = await host.handle('chat.enqueue', { session_id, text: 'second' });
    const b = await host.handle('chat.enqueue', { session_id, text: 'third' });
    const c = await host.handle('chat.enqueue', { session_id, text: 'dropped' });
    expect(a.correlation_id).toBeUndefined();
    await host.handle('chat.queueEdit', { session_id, id: b.id, text: 'third, edited' });
    await host.handle('chat.queueRemove', { session_id, id: c.id });
    expect(queued().map((m) => m.text)).toEqual(['second', 'third, edited']);
    expect((await host.handle('chat.session', { id: session_id })).queued?.map((m) => m.text)).toEqual(['second', 'third, edited']);
    release();
    await until(() => finishedCount() === 3, 15_000);
    expect(llm.completions.map((r) => lastUser(r))).toEqual(['first', 'second', 'third, edited']);
    expect(queued()).toEqual([]);
    // Each went as its own request; the fold shows them as the person's messages, in order.
    const view = await host.handle('chat.session', { id: session_id });
    expect(foldTranscript(view.entries).filter((i) => i.kind === 'user').map((i) => i.kind === 'user' && i.text)).toEqual(['first', 'second', 'third, edited']);
  });

  it('"send now" gives it to the model at the next tool boundary of the running request', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let turn = 0;
    await connect(async () => {
      turn++;
      if (turn === 1) {
        await held;
        return { toolCalls: [call('r1', 'read_file', { path: 'a.txt' })] };
      }
      return { content: 'Done.' };
    });
    const { session_id } = await host.handle('chat.send', { text: 'read a.txt' });
    const q = await host.handle('chat.enqueue', { session_id, text: 'and say hi' });
    await host.handle('chat.sendNow', { session_id, id: q.id });
    expect(queued()).toEqual([expect.objectContaining({ id: q.id, steer: true })]);
    release();
    await until(() => finishedCount() === 1, 15_000);
    expect(llm.completions).toHaveLength(2);
    const msgs = llm.completions[1].body.messages!;
    expect(msgs.slice(-3).map((m) => m.role)).toEqual(['assistant', 'tool', 'user']);
    expect(msgs.at(-1)!.content).toBe('and say hi');
    expect(queued()).toEqual([]);
    const view = await host.handle('chat.session', { id: session_id });
    expect(foldTranscript(view.entries).filter((i) => i.kind === 'user').map((i) => i.kind === 'user' && [i.text, Boolean(i.steer)])).toEqual([
      ['read a.txt', false],
      ['and say hi', true],
    ]);
  });

  it('after a stop the queue waits for the person; "send now" then sends it', async () => {
    await connect(async (req) => (userPrompt(req) === 'long' ? { content: 'streaming for a long while', stallAfterFrames: 3 } : { content: 'ok' }));
    const { session_id } = await host.handle('chat.send', { text: 'long' });
    const q = await host.handle('chat.enqueue', { session_id, text: 'next' });
    await until(() => chat().some((e) => e.type === 'text_delta'), 10_000);
    await host.handle('chat.stop', { session_id });
    expect(chat().find((e) => e.type === 'error')).toMatchObject({ code: 'ABORTED', message: expect.stringMatching(/answer so far \(\d+ characters\) is kept/) });
    expect(queued().map((m) => m.text)).toEqual(['next']);
    expect(llm.completions).toHaveLength(1);
    const r = await host.handle('chat.sendNow', { session_id, id: q.id });
    expect(r.correlation_id).toMatch(/^req-/);
    await until(() => finishedCount() === 2, 10_000);
    expect(lastUser(llm.completions[1])).toBe('next');
  });
});

describe('edit and resend', () => {
  it('forks before the edited message; the old branch is kept and can be shown again', async () => {
    await connect((req) => ({ content: `Answer to ${String(lastUser(req))}.` }));
    const { session_id } = await host.handle('chat.send', { text: 'one' });
    await until(() => finishedCount() === 1, 10_000);
    const two = await host.handle('chat.send', { session_id, text: 'two' });
    await until(() => finishedCount() === 2, 10_000);
    await host.handle('chat.send', { session_id, text: 'three' });
    await until(() => finishedCount() === 3, 10_000);

    await host.handle('chat.edit', { session_id, correlation_id: two.correlation_id, text: 'two, better' });
    await until(() => finishedCount() === 4, 10_000);
    // The model saw the conversation as it was before the edited message, then the new text.
    const sent = llm.completions[3].body.messages!.filter((m) => m.role !== 'system').map((m) => m.content);
    expect(sent).toEqual(['one', 'Answer to one.', 'two, better']);
    const forked = await host.handle('chat.session', { id: session_id });
    const texts = (v: typeof forked) => foldTranscript(v.entries).flatMap((i) => (i.kind === 'user' || i.kind === 'assistant' ? [i.text] : []));
    expect(texts(forked)).toEqual(['one', 'Answer to one.', 'two, better', 'Answer to two, better.']);
    const fork = forked.forks!.find((f) => f.branches.length === 2)!;
    expect(fork.branches.map((b) => [b.label, b.current])).toEqual([
      ['two', false],
      ['two, better', true],
    ]);

    const old = await host.handle('chat.switchBranch', { session_id, branch_id: fork.branches[0].id });
    expect(texts(old)).toEqual(['one', 'Answer to one.', 'two', 'Answer to two.', 'three', 'Answer to three.']);
    // Kept on disk: a reopened host shows the same branch and can switch back.
    const file = JSON.parse(await readFile(path.join(ws, '.loupe/sessions', `${session_id}.json`), 'utf8'));
    expect(file.branches).toHaveLength(1);
    const back = await host.handle('chat.switchBranch', { session_id, branch_id: fork.branches[1].id });
    expect(texts(back)).toEqual(['one', 'Answer to one.', 'two, better', 'Answer to two, better.']);
    // Going on from the old branch continues its own history.
    await host.handle('chat.switchBranch', { session_id, branch_id: fork.branches[0].id });
    await host.handle('chat.send', { session_id, text: 'four' });
    await until(() => finishedCount() === 5, 10_000);
    const users = llm.completions[4].body.messages!.filter((m) => m.role === 'user').map((m) => String(m.content));
    expect(users.slice(0, 3)).toEqual(['one', 'two', 'three']);
    // Told once, however many times the person switched: files may not be as this branch left them.
    expect(users[3]).toMatch(/^\[Loupe: since your last answer, in this folder — The person switched this conversation to another version of it[^\]]*\]\n\nfour$/);
    expect(users[3].match(/switched this conversation/g)).toHaveLength(1);
  });
});

describe('plan mode', () => {
  it('the plan is saved beside the session; "Execute plan" runs it in act mode and its changes carry the plan’s correlation id', async () => {
    await connect((req) => {
      const last = req.body.messages!.at(-1)!;
      const executing = req.body.messages!.some((m) => m.role === 'user' && String(m.content).startsWith('Execute the plan'));
      if (!executing) {
        if (last.role === 'user') return { toolCalls: [call('w1', 'write_file', { path: 'b.txt', content: 'new\n' })] };
        return { content: '# Plan\n\nCreate b.txt holding `new`.\n' };
      }
      if (last.role === 'user') return { toolCalls: [call('w2', 'write_file', { path: 'b.txt', content: 'new\n' })] };
      return { content: 'Done.' };
    });
    const planned = await host.handle('chat.send', { text: 'plan b.txt', mode: 'plan' });
    await until(() => finishedCount() === 1, 10_000);
    const refusal = chat().find((e) => e.type === 'tool_call_finished');
    expect(refusal).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', details: { denied_by: 'mode' } } });
    const plan = chat().find((e): e is Extract<ChatEvent, { type: 'plan' }> => e.type === 'plan')!;
    expect(plan.path).toBe(`.loupe/plans/${planned.session_id}/${planned.correlation_id}.md`);
    expect(await readFile(path.join(ws, plan.path), 'utf8')).toBe('# Plan\n\nCreate b.txt holding `new`.\n');
    await expect(readFile(path.join(ws, 'b.txt'), 'utf8')).rejects.toThrow();

    const executed = await host.handle('chat.send', { session_id: planned.session_id, text: 'Execute the plan.', plan: planned.correlation_id });
    expect(executed.correlation_id).toBe(planned.correlation_id);
    await until(() => finishedCount() === 2, 10_000);
    expect(await readFile(path.join(ws, 'b.txt'), 'utf8')).toBe('new\n');
    // The model got the plan's text with the request.
    expect(String(lastUser(llm.completions[2]))).toContain('Create b.txt holding `new`.');
    const mods = await host.handle('modlog.list', { correlation_id: planned.correlation_id });
    expect(mods.modifications.map((m) => [m.file, m.tool])).toEqual([['b.txt', 'write_file']]);
    // A request that is not a plan cannot be executed as one.
    await expect(host.handle('chat.send', { session_id: planned.session_id, text: 'x', plan: 'req-nope' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
