// The MCP client against real servers (server-everything over stdio, in the OS sandbox where one
// works): connect, list, follow list_changed, answer roots/list with the workspace, call.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WorkspaceServices } from '../../src/main/workspace/compose';
import { EVERYTHING, everythingStdio, writeServers } from '../support/mcpServers';
import { testServices } from '../support/services';
import { tempWorkspace, type TempWorkspace, until } from '../support/tmp';

let t: TempWorkspace;
let root: string;
let home: string;
let services: WorkspaceServices | null = null;
beforeEach(async () => {
  t = await tempWorkspace('loupe-mcp-servers-');
  ({ root, home } = t);
});
afterEach(async () => {
  await services?.dispose();
  services = null;
  await t.cleanup();
});

const text = (r: { content: unknown[] }) => (r.content as { type: string; text?: string }[]).map((c) => c.text ?? `[${c.type}]`).join('\n');

describe('server-everything over stdio', () => {
  it('connects, lists its tools, follows list_changed, answers roots/list with the workspace', async () => {
    writeServers(home, { everything: everythingStdio() });
    services = testServices(root, { configDir: home });
    await services.mcp.sync();
    const [view] = services.mcp.list();
    expect(view).toMatchObject({ name: 'everything', status: 'ready', source: 'user', transport: 'stdio' });
    expect(view.tools).toEqual(expect.arrayContaining(['echo', 'get-tiny-image', 'trigger-long-running-operation']));
    // Tools registered once the server knows the client takes roots and elicitation arrive by list_changed.
    await until(() => services!.mcp.list()[0].tools.includes('get-roots-list'), 10_000);
    const signal = new AbortController().signal;
    expect(text(await services.mcp.call('everything', 'echo', { message: 'hi there' }, { signal }))).toContain('hi there');
    expect(text(await services.mcp.call('everything', 'get-roots-list', {}, { signal }))).toContain(`file://${root}`);
  }, 60_000);
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** server-everything over HTTP (`streamableHttp` or the older `sse`), owned by the test. */
async function everythingHttp(mode: 'streamableHttp' | 'sse'): Promise<{ port: number; proc: ChildProcess }> {
  const port = await freePort();
  const proc = spawn(process.execPath, [EVERYTHING, mode], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  proc.stderr!.on('data', (d) => (err += d));
  await until(() => /(listening|running) on port/i.test(err) || proc.exitCode !== null, 20_000);
  if (proc.exitCode !== null) throw new Error(`server-everything ${mode} did not start: ${err}`);
  return { port, proc };
}

describe('server-everything over HTTP', () => {
  const procs: ChildProcess[] = [];
  afterEach(() => {
    for (const p of procs.splice(0)) p.kill();
  });

  it('streamable HTTP: ready, tools with arguments, an image; an SSE-only server is reached by falling back', async () => {
    const http = await everythingHttp('streamableHttp');
    const sse = await everythingHttp('sse');
    procs.push(http.proc, sse.proc);
    writeServers(home, { remote: { url: `http://127.0.0.1:${http.port}/mcp` }, older: { url: `http://127.0.0.1:${sse.port}/sse` } });
    services = testServices(root, { configDir: home });
    await services.mcp.sync();
    const views = Object.fromEntries(services.mcp.list().map((v) => [v.name, v]));
    expect(views.remote).toMatchObject({ status: 'ready', transport: 'http', sandboxed: null });
    expect(views.older).toMatchObject({ status: 'ready' });
    const signal = new AbortController().signal;
    expect(text(await services.mcp.call('remote', 'get-sum', { a: 1, b: 2 }, { signal }))).toContain('3');
    expect(text(await services.mcp.call('remote', 'get-tiny-image', {}, { signal }))).toContain('[image]');
    expect(text(await services.mcp.call('older', 'echo', { message: 'over sse' }, { signal }))).toContain('over sse');
  }, 60_000);
});

describe("servers a chat session brings (an ACP client's mcpServers)", () => {
  it('start as the person\'s own, serve that session only, keep a configured name, and stop with the session', async () => {
    writeServers(home, { configured: everythingStdio() });
    services = testServices(root, { configDir: home });
    await services.mcp.sync();
    const decl = (name: string) => ({ name, source: 'user' as const, file: 'the editor', entry: everythingStdio() });
    const { skipped } = await services.mcp.addSessionServers('s1', [decl('editor'), decl('configured')]);
    expect(skipped).toEqual(['configured']);
    const servers = (session?: string) => [...new Set(services!.mcp.tools(session).map((t) => t.server))].sort();
    expect(servers('s1')).toEqual(['configured', 'editor']);
    expect(servers('s2')).toEqual(['configured']);
    expect(servers()).toEqual(['configured']);
    // The settings list only configured servers: the session's are the editor's to show.
    expect(services.mcp.list().map((v) => v.name)).toEqual(['configured']);
    const signal = new AbortController().signal;
    expect(text(await services.mcp.call('editor', 'echo', { message: 'from the editor' }, { signal, session: 's1' }))).toContain('from the editor');
    await expect(services.mcp.call('editor', 'echo', { message: 'x' }, { signal, session: 's2' })).rejects.toMatchObject({ code: 'MCP_SERVER_UNAVAILABLE' });
    expect(services.mcp.local('editor', 's1')).toBe(true);
    await services.mcp.removeSessionServers('s1');
    expect(servers('s1')).toEqual(['configured']);
    await expect(services.mcp.call('editor', 'echo', { message: 'x' }, { signal, session: 's1' })).rejects.toMatchObject({ code: 'MCP_SERVER_UNAVAILABLE' });
  }, 60_000);
});
