// A model's call of a server's tool, through the agent loop with the scripted model and real
// server processes (docs/architecture.md, "MCP servers"). A server that is down answers as down —
// MCP_SERVER_UNAVAILABLE with its status and the end of its stderr, within the call timeout —
// even when it never listed a tool (a model that saw the tool in an earlier turn or a resumed
// session calls it by name). A server receives exactly the arguments the model gave, checked
// first against the server's own inputSchema: nothing of Loupe's (its correlation id) is added.
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WorkspaceServices } from '../../src/main/workspace/compose';
import { call } from '../agent/agentHarness';
import { mcpAgent } from '../support/mcpAgent';
import { fixture, writeServers } from '../support/mcpServers';
import { startScriptedLlm, type ScriptedLlm } from '../support/scriptedLlm';
import { testServices } from '../support/services';
import { tempWorkspace, type TempWorkspace, until } from '../support/tmp';

let t: TempWorkspace;
let llm: ScriptedLlm;
let services: WorkspaceServices | null = null;
beforeEach(async () => {
  t = await tempWorkspace('loupe-mcp-model-');
  llm = await startScriptedLlm();
});
afterEach(async () => {
  await services?.dispose();
  services = null;
  await llm.close();
  await t.cleanup();
});

const allow = (pattern: string) => ({ kind: 'mcp', pattern, action: 'allow' });
const view = (name: string) => services!.mcp.list().find((v) => v.name === name)!;

describe('a server that is down answers as down', () => {
  it('one that exited at start, one that never answered initialize, one that printed garbage: MCP_SERVER_UNAVAILABLE with the status and the end of its stderr, never "Unknown tool"', async () => {
    writeServers(t.home, {
      weather: fixture('exitsAtStart.cjs'),
      silent: fixture('neverInitialize.cjs', { connect_timeout_ms: 1500 }),
      noisy: fixture('garbage.cjs', { connect_timeout_ms: 1500 }),
    }, { permissions: [allow('*')] });
    services = testServices(t.root, { configDir: t.home });
    await services.mcp.sync();
    expect(services.mcp.list().map((v) => v.status)).toEqual(['failed', 'failed', 'failed']);
    // The model knows these tools from an earlier turn: none of them was ever listed here.
    llm.enqueue({ toolCalls: [call('w', 'mcp__weather__forecast', { city: 'Lisbon' }), call('s', 'mcp__silent__anything', {}), call('n', 'mcp__noisy__x', {})] }, { content: 'they are down' });
    const { agent, finished } = mcpAgent(services, llm);
    expect((await agent.run('weather?')).status).toBe('done');
    for (const id of ['w', 's', 'n']) {
      expect(finished[id], id).toMatchObject({ ok: false, error: { code: 'MCP_SERVER_UNAVAILABLE' } });
      expect(finished[id]!.output, id).not.toMatch(/Unknown tool|read_file/);
      expect(finished[id]!.output, id).toContain('(failed)');
    }
    expect(finished.w!.output).toMatch(/"weather" is not available \(failed\): it exited with code 1 before it answered initialize; its stderr ends: starting weather server \| fatal: WEATHER_API_KEY is not set/);
    expect(finished.w!.error!.details).toMatchObject({ server: 'weather', status: 'failed', stderr: ['starting weather server', 'fatal: WEATHER_API_KEY is not set'] });
    expect(finished.s!.output).toContain('did not answer initialize within 1.5 s');
    expect(finished.s!.output).toContain('never-initialize: up, but not answering');
    expect(finished.n!.output).toContain('Welcome to Garbage Server v1.0!');
    // What the model read in the next request says the same.
    const sent = JSON.stringify(llm.completions[1]!.body.messages);
    expect(sent).toContain('WEATHER_API_KEY is not set');
    expect(sent).not.toContain('Unknown tool');
  }, 60_000);

  it('one still starting: the call fails within its own timeout, saying it is starting and what it printed', async () => {
    writeServers(t.home, { slow: fixture('neverInitialize.cjs', { connect_timeout_ms: 600_000, timeout_ms: 400 }) }, { permissions: [allow('slow/*')] });
    services = testServices(t.root, { configDir: t.home });
    void services.mcp.sync();
    await until(() => view('slow')?.stderr.length);
    llm.enqueue({ toolCalls: [call('c1', 'mcp__slow__echo', { message: 'hi' })] }, { content: 'later' });
    const { agent, finished } = mcpAgent(services, llm);
    expect((await agent.run('echo')).status).toBe('done');
    // It answered while the server was still connecting: the call's timeout bounded it, not the connect's.
    expect(view('slow').status).toBe('connecting');
    expect(finished.c1).toMatchObject({ ok: false, error: { code: 'MCP_SERVER_UNAVAILABLE', details: { status: 'connecting' } } });
    expect(finished.c1!.output).toMatch(/"slow" is not available \(connecting\): starting.*its stderr ends: never-initialize: up, but not answering/);
  }, 60_000);

  it('one that becomes ready while the call waits: the call goes through', async () => {
    const go = path.join(t.root, 'go');
    writeServers(t.home, { late: fixture('startsOnSignal.cjs', { env: { GO_FILE: go } }) }, { permissions: [allow('late/*')] });
    services = testServices(t.root, { configDir: t.home });
    void services.mcp.sync();
    await until(() => view('late')?.stderr.length);
    llm.enqueue({ toolCalls: [call('c1', 'mcp__late__echo', { message: 'hi' })] }, { content: 'echoed' });
    const { agent, finished, events } = mcpAgent(services, llm);
    const run = agent.run('echo');
    await until(() => events.some((e) => e.type === 'tool_call_started'));
    expect(view('late').status).toBe('connecting');
    await writeFile(go, '');
    expect((await run).status).toBe('done');
    expect(finished.c1, finished.c1?.output).toMatchObject({ ok: true, output: 'echo hi' });
    expect(existsSync(go)).toBe(true);
  }, 60_000);
});

describe('a server receives exactly the arguments the model gave', () => {
  it('no correlation id added (a tool with parameters, one with none); arguments that break the server’s inputSchema never reach it', async () => {
    writeServers(t.home, { strict: fixture('strictArgs.cjs') }, { permissions: [allow('strict/*')] });
    services = testServices(t.root, { configDir: t.home });
    await services.mcp.sync();
    expect(view('strict')).toMatchObject({ status: 'ready', tools: ['forecast', 'ping'] });
    llm.enqueue(
      { toolCalls: [call('f', 'mcp__strict__forecast', { city: 'Lisbon' }), call('p', 'mcp__strict__ping', {})] },
      { toolCalls: [call('bad1', 'mcp__strict__forecast', { city: 5 }), call('bad2', 'mcp__strict__forecast', { town: 'Porto' }), call('bad3', 'mcp__strict__ping', { loud: true })] },
      { content: 'done' },
    );
    const { agent, finished } = mcpAgent(services, llm);
    expect((await agent.run('forecast')).status).toBe('done');
    expect(finished.f, finished.f?.output).toMatchObject({ ok: true, output: 'Sunny in Lisbon' });
    expect(finished.p, finished.p?.output).toMatchObject({ ok: true, output: 'pong' });
    for (const id of ['bad1', 'bad2', 'bad3']) expect(finished[id], id).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    expect(finished.bad1!.output).toMatch(/mcp__strict__forecast.*city must be string/);
    expect(finished.bad2!.output).toMatch(/must have required property 'city'/);
    expect(finished.bad3!.output).toMatch(/must NOT have additional properties/);
    // What arrived, as the server told it: the model's arguments and nothing else.
    expect(view('strict').stderr.filter((l) => l.startsWith('received'))).toEqual(['received forecast {"city":"Lisbon"}', 'received ping {}']);
  }, 60_000);
});
