// Servers that go wrong the ways real ones do: one crashes in the middle of a call, one never
// answers initialize, one prints a banner on stdout where JSON-RPC belongs. Each ends in a clear
// error within its timeout, says what happened in its status (with its stderr), and leaves the
// other servers of the workspace working.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LoupeError } from '../../src/main/errors';
import type { WorkspaceServices } from '../../src/main/workspace/compose';
import { everythingStdio, fixture, writeServers } from '../support/mcpServers';
import { testServices } from '../support/services';
import { tempWorkspace, type TempWorkspace, until } from '../support/tmp';

let t: TempWorkspace;
let root: string;
let home: string;
let services: WorkspaceServices | null = null;
beforeEach(async () => {
  t = await tempWorkspace('loupe-mcp-fail-');
  ({ root, home } = t);
});
afterEach(async () => {
  await services?.dispose();
  services = null;
  await t.cleanup();
});

const signal = () => new AbortController().signal;
const view = (name: string) => services!.mcp.list().find((v) => v.name === name)!;

async function failure(p: Promise<unknown>): Promise<LoupeError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(LoupeError);
  return err as LoupeError;
}

describe('servers that go wrong', () => {
  it('one that never answers initialize, and one that prints garbage on stdout: failed within the timeout, saying why; the others work', async () => {
    writeServers(home, {
      silent: fixture('neverInitialize.cjs', { connect_timeout_ms: 1500 }),
      noisy: fixture('garbage.cjs', { connect_timeout_ms: 1500 }),
      everything: everythingStdio(),
    });
    services = testServices(root, { configDir: home });
    await services.mcp.sync();
    expect(view('silent')).toMatchObject({ status: 'failed', detail: expect.stringContaining('did not answer initialize within 1.5 s') });
    expect(view('silent').detail).toContain('never-initialize: up, but not answering');
    expect(view('silent').stderr).toContain('never-initialize: up, but not answering');
    expect(view('noisy')).toMatchObject({ status: 'failed', detail: expect.stringContaining('it printed this on stdout instead of JSON-RPC: "Welcome to Garbage Server v1.0!"') });
    expect(view('everything').status).toBe('ready');
    expect((await services.mcp.call('everything', 'echo', { message: 'still here' }, { signal: signal() })).content).toEqual([{ type: 'text', text: 'Echo: still here' }]);
    const err = await failure(services.mcp.call('silent', 'anything', {}, { signal: signal() }));
    expect(err.code).toBe('MCP_SERVER_UNAVAILABLE');
    expect(err.message).toContain('did not answer initialize');
  }, 60_000);

  it('one that crashes mid-call: the call fails with MCP_SERVER_UNAVAILABLE naming the exit and its stderr, then it is restarted', async () => {
    // A call waits for a server that is starting, at most its timeout: shorter here than the first restart's pause.
    writeServers(home, { crashy: fixture('crashMidCall.cjs', { timeout_ms: 300 }) });
    services = testServices(root, { configDir: home });
    await services.mcp.sync();
    expect(view('crashy')).toMatchObject({ status: 'ready', tools: ['ok', 'boom'] });
    const err = await failure(services.mcp.call('crashy', 'boom', {}, { signal: signal() }));
    expect(err.code).toBe('MCP_SERVER_UNAVAILABLE');
    expect(err.message).toMatch(/it stopped during the call \(it exited with code 3\); its stderr ends: .*segmentation fault \(simulated\)/);
    // Down, its tools are still known and answer the same code, saying it is restarting, with its stderr.
    await until(() => view('crashy').status === 'connecting');
    expect(view('crashy').detail).toMatch(/exited with code 3; restarting in 1 s \(attempt 1 of 5\)/);
    expect(services.mcp.tools().map((x) => `${x.tool.name} ${x.available}`)).toEqual(['ok false', 'boom false']);
    const down = await failure(services.mcp.call('crashy', 'ok', {}, { signal: signal() }));
    expect(down.message).toMatch(/"crashy" is not available \(connecting\): it exited with code 3; restarting in 1 s .*its stderr ends: .*segmentation fault \(simulated\)/);
    expect(down.details).toMatchObject({ server: 'crashy', status: 'connecting', stderr: expect.arrayContaining(['Error: segmentation fault (simulated)']) });
    await until(() => view('crashy').status === 'ready', 15_000);
    expect(view('crashy').restarts).toBe(1);
    expect((await services.mcp.call('crashy', 'ok', {}, { signal: signal() })).content).toEqual([{ type: 'text', text: 'fine' }]);
  }, 60_000);
});
