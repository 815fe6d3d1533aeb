// The person's MCP servers as the agent's tools, through the agent loop with the scripted model and
// real servers (server-everything, server-filesystem): mcp__<server>__<tool> with arguments, an
// image summarised, a long call stopped (the server told), a write by the server recorded as one
// modification that rolls back, and the `mcp` permission kind: deny holds, ask shows the
// arguments, "always" saves server/tool.
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ModelRow } from '../../src/main/agent/llm/config';
import type { AgentEvent } from '../../src/main/agent/loop/events';
import { UserSettings } from '../../src/main/services/settings/userSettings';
import type { WorkspaceServices } from '../../src/main/workspace/compose';
import { call } from '../agent/agentHarness';
import { mcpAgent } from '../support/mcpAgent';
import { everythingStdio, filesystemStdio, fixture, writeServers } from '../support/mcpServers';
import { startScriptedLlm, type ScriptedLlm } from '../support/scriptedLlm';
import { testServices } from '../support/services';
import { git, tempWorkspace, type TempWorkspace, until, writeTree } from '../support/tmp';

let t: TempWorkspace;
let root: string;
let home: string;
let llm: ScriptedLlm;
let services: WorkspaceServices | null = null;
beforeEach(async () => {
  t = await tempWorkspace('loupe-mcp-agent-');
  ({ root, home } = t);
  llm = await startScriptedLlm();
});
afterEach(async () => {
  await services?.dispose();
  services = null;
  await llm.close();
  await t.cleanup();
});

/** The agent of this workspace, its MCP servers' tools among its own. */
const agentOf = (s: WorkspaceServices, modelRow?: ModelRow) => mcpAgent(s, llm, modelRow);

const allow = (pattern: string) => ({ kind: 'mcp', pattern, action: 'allow' });

describe('server tools for the model', () => {
  it('server-everything: named mcp__everything__*, called with arguments, an image summarised; the model is offered portable schemas', async () => {
    writeServers(home, { everything: everythingStdio() }, { permissions: [allow('everything/*')] });
    services = testServices(root, { configDir: home });
    await services.mcp.sync();
    llm.enqueue(
      { toolCalls: [call('c1', 'mcp__everything__get-sum', { a: 2, b: 40 }), call('c2', 'mcp__everything__get-tiny-image', {})] },
      { toolCalls: [call('c3', 'mcp__everything__trigger-long-running-operation', { duration: 1, steps: 2 })] },
      { content: 'done' },
    );
    const { agent, finished, events } = agentOf(services);
    expect((await agent.run('add')).status).toBe('done');
    expect(finished.c1).toMatchObject({ ok: true });
    expect(finished.c1!.output).toContain('42');
    expect(finished.c2!.ok).toBe(true);
    expect(finished.c2!.output).toMatch(/\[image: image\/png, \d+ bytes\]/);
    expect(finished.c2!.data).toMatchObject({ server: 'everything', tool: 'get-tiny-image', images: [{ mime_type: 'image/png' }] });
    // Progress reports show on the card as they come.
    expect(finished.c3!.ok, finished.c3!.output).toBe(true);
    const progress = events.filter((e): e is Extract<AgentEvent, { type: 'tool_output' }> => e.type === 'tool_output' && e.call_id === 'c3').map((e) => e.text);
    expect(progress.join('')).toMatch(/\(1 of 2\)/);
    // The card names the server.
    const started = events.find((e): e is Extract<AgentEvent, { type: 'tool_call_started' }> => e.type === 'tool_call_started' && e.call_id === 'c1')!;
    expect(started.title).toContain('MCP everything');
    const offered = (llm.completions[0]!.body.tools as { function: { name: string; parameters: unknown } }[]).map((x) => x.function);
    const sum = offered.find((f) => f.name === 'mcp__everything__get-sum')!;
    expect(sum.parameters).toMatchObject({ type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } });
    expect(JSON.stringify(offered)).not.toMatch(/"\$schema"|"items":false|"additionalProperties":\{\}/);
  }, 60_000);

  it("an image result reaches a model that takes images as an image part after the results, a text-only model as its type and size only", async () => {
    writeServers(home, { everything: everythingStdio() }, { permissions: [allow('everything/*')] });
    services = testServices(root, { configDir: home });
    await services.mcp.sync();
    type Sent = { role: string; content: string | { type: string; text?: string; image_url?: { url: string } }[]; tool_call_id?: string };
    const sentAfter = async (modelRow: ModelRow): Promise<{ sent: Sent[]; image: string }> => {
      llm.enqueue({ toolCalls: [call('i1', 'mcp__everything__get-tiny-image', {}), call('i2', 'mcp__everything__get-sum', { a: 1, b: 2 })] }, { content: 'seen' });
      const before = llm.completions.length;
      const { agent, finished } = agentOf(services!, modelRow);
      expect((await agent.run('look')).status).toBe('done');
      expect(finished.i1!.ok, finished.i1!.output).toBe(true);
      // Base64 never rides in the events' data.
      expect(JSON.stringify(finished.i1!.data)).not.toMatch(/base64|"data"/);
      const sent = llm.completions[before + 1]!.body.messages as Sent[];
      const tool = sent.find((m) => m.tool_call_id === 'i1')!;
      return { sent, image: String(tool.content) };
    };

    const seeing = await sentAfter({ images: true });
    const tools = seeing.sent.findIndex((m) => m.role === 'tool');
    // The results in order, right after the call (what the APIs require), then the images.
    expect(seeing.sent.slice(tools, tools + 3).map((m) => m.role)).toEqual(['tool', 'tool', 'user']);
    const parts = seeing.sent[tools + 2]!.content as { type: string; text?: string; image_url?: { url: string } }[];
    expect(parts[0]!.text).toContain('mcp__everything__get-tiny-image (call i1): 1 image');
    expect(parts.slice(1)).toEqual([{ type: 'image_url', image_url: { url: expect.stringMatching(/^data:image\/png;base64,[A-Za-z0-9+/]{100,}=*$/) } }]);
    expect(seeing.image).toMatch(/\[image: image\/png, \d+ bytes\]/);

    const blind = await sentAfter({ images: false });
    expect(blind.image).toMatch(/\[image: image\/png, \d+ bytes\]/);
    const base64 = parts[1]!.image_url!.url.split(',')[1]!;
    expect(JSON.stringify(blind.sent)).not.toContain(base64.slice(0, 40));
    expect(JSON.stringify(blind.sent)).not.toContain('image_url');
    // The loop of each agent is its own: the text-only agent's conversation holds no image message.
    expect(blind.sent.filter((m) => m.role === 'user')).toHaveLength(1);
  }, 60_000);

  it('Stop cancels a long call: the call ends ABORTED at once and the server receives notifications/cancelled', async () => {
    // In the workspace: the server runs in the sandbox, where nothing else is writable.
    const record = path.join(root, 'cancelled.jsonl');
    writeServers(home, { slow: fixture('recordsCancel.cjs', { env: { RECORD: record } }) }, { permissions: [allow('slow/*')] });
    services = testServices(root, { configDir: home });
    await services.mcp.sync();
    expect(services.mcp.list()[0]).toMatchObject({ status: 'ready' });
    llm.enqueue({ toolCalls: [call('c1', 'mcp__slow__wait', {})] }, { content: 'never' });
    const { agent, finished } = agentOf(services);
    const stop = new AbortController();
    const run = agent.run('wait', { signal: stop.signal });
    // Stopped once the server is working on the call.
    await until(() => existsSync(record) && readFileSync(record, 'utf8').includes('started'), 20_000);
    stop.abort();
    expect((await run).status).toBe('aborted');
    expect(finished.c1).toMatchObject({ ok: false });
    expect(finished.c1!.error?.code).toBe('ABORTED');
    await until(() => existsSync(record) && readFileSync(record, 'utf8').includes('requestId'), 10_000);
    // The server is still ready for the next call.
    expect(services.mcp.list()[0]!.status).toBe('ready');
  }, 60_000);

  it('a call past its timeout fails with TIMEOUT and the server hears it was cancelled', async () => {
    // In the workspace: the server runs in the sandbox, where nothing else is writable.
    const record = path.join(root, 'cancelled.jsonl');
    writeServers(home, { slow: fixture('recordsCancel.cjs', { env: { RECORD: record }, timeout_ms: 500 }) }, { permissions: [allow('slow/*')] });
    services = testServices(root, { configDir: home });
    await services.mcp.sync();
    llm.enqueue({ toolCalls: [call('c1', 'mcp__slow__wait', {})] }, { content: 'ok' });
    const { agent, finished } = agentOf(services);
    await agent.run('wait');
    expect(finished.c1!.error?.code).toBe('TIMEOUT');
    expect(finished.c1!.output).toContain('mcpServers.slow.timeout_ms');
    await until(() => existsSync(record), 10_000);
  }, 60_000);
});

describe("a server's writes are modifications", () => {
  it('server-filesystem scoped to the workspace writes a file: one modification of that tool, in the log, rolled back', async () => {
    git(root, 'init', '-q');
    await writeTree(root, { 'README.md': 'hello\n' });
    writeServers(home, { fs: filesystemStdio(root) }, { permissions: [allow('fs/*')] });
    services = testServices(root, { configDir: home });
    await services.mcp.sync();
    expect(services.mcp.list()[0]).toMatchObject({ status: 'ready' });
    const target = path.join(root, 'notes.txt');
    llm.enqueue({ toolCalls: [call('c1', 'mcp__fs__write_file', { path: target, content: 'written by the server\n' })] }, { content: 'wrote it' });
    const { agent, finished } = agentOf(services);
    const r = await agent.run('write a note');
    expect(r.status).toBe('done');
    expect(finished.c1!.ok, finished.c1!.output).toBe(true);
    expect(await readFile(target, 'utf8')).toBe('written by the server\n');
    const changes = (finished.c1!.data as { changes: { group_id: string; files: { file: string; change: string }[] } }).changes;
    expect(changes.files).toEqual([expect.objectContaining({ file: 'notes.txt', change: 'created' })]);
    expect(finished.c1!.output).toContain(`group ${changes.group_id}`);
    // In the log, attributed to the tool and the request.
    const log = (await readFile(path.join(root, '.loupe/modifications.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(log).toEqual(expect.arrayContaining([expect.objectContaining({ file: 'notes.txt', tool: 'mcp__fs__write_file', correlation_id: r.correlationId })]));
    // And reversible like any other.
    llm.enqueue({ toolCalls: [call('r1', 'code_rollback', { modification_id: changes.group_id })] }, { content: 'undone' });
    await agent.run('undo it');
    expect(finished.r1!.ok, finished.r1!.output).toBe(true);
    expect(existsSync(target)).toBe(false);
  }, 90_000);
});

describe('the mcp permission kind', () => {
  it('a deny rule holds (the server never sees the call); an ask shows server, tool and arguments; "always" saves server/tool', async () => {
    writeServers(home, { everything: everythingStdio() }, { permissions: [{ kind: 'mcp', pattern: 'everything/get-env', action: 'deny' }] });
    const user = new UserSettings(home);
    services = testServices(root, { user, asker: { kind: 'person' } });
    await services.mcp.sync();
    const queue = services.queue;
    const { agent, finished } = agentOf(services);

    llm.enqueue({ toolCalls: [call('c1', 'mcp__everything__get-env', {})] }, { content: 'denied' });
    await agent.run('env');
    expect(finished.c1!.error?.code).toBe('PERMISSION_DENIED');
    expect(finished.c1!.output).toContain('everything/get-env');
    expect(finished.c1!.output).not.toContain('PATH');

    llm.enqueue({ toolCalls: [call('c2', 'mcp__everything__echo', { message: 'ask me' })] }, { content: 'echoed' });
    const run = agent.run('echo');
    const card = await until(() => queue.list()[0], 20_000);
    expect(card).toMatchObject({ kind: 'mcp', tool: 'mcp__everything__echo', summary: 'MCP everything/echo' });
    expect(card.details).toBe(JSON.stringify({ message: 'ask me' }, null, 2));
    expect(card.always).toEqual([{ kind: 'mcp', pattern: 'everything/echo', action: 'allow' }]);
    queue.answer(card.id, { answer: 'always' });
    await run;
    expect(finished.c2!.ok, finished.c2!.output).toBe(true);
    expect(finished.c2!.output).toContain('Echo: ask me');
    const saved = JSON.parse(await readFile(path.join(root, '.loupe/config.json'), 'utf8')) as { permissions: unknown[] };
    expect(saved.permissions).toEqual([{ kind: 'mcp', pattern: 'everything/echo', action: 'allow' }]);
    // The next call of that tool does not ask.
    llm.enqueue({ toolCalls: [call('c3', 'mcp__everything__echo', { message: 'again' })] }, { content: 'echoed' });
    await agent.run('echo again');
    expect(finished.c3!.ok).toBe(true);
    expect(queue.list()).toEqual([]);
  }, 60_000);
});
