// A stdio server runs inside the OS sandbox by the policy commands run by: the workspace writable,
// nothing else; no network unless its configuration lists hosts, and then only those, through the
// same filtering proxy (the settings' network log names the server).
import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { probeSandbox } from '../../src/main/services/sandbox/probe';
import type { WorkspaceServices } from '../../src/main/workspace/compose';
import { fixture, writeServers } from '../support/mcpServers';
import { testServices } from '../support/services';
import { tempWorkspace, type TempWorkspace } from '../support/tmp';

const sandbox = await probeSandbox();
const d = sandbox.available && sandbox.kind === 'bwrap' ? describe : describe.skip;

let t: TempWorkspace;
let root: string;
let home: string;
let site: http.Server;
let url: string;
let services: WorkspaceServices | null = null;
beforeEach(async () => {
  t = await tempWorkspace('loupe-mcp-sandbox-');
  ({ root, home } = t);
  site = http.createServer((_q, s) => s.end('hello from the host'));
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
});
afterEach(async () => {
  await services?.dispose();
  services = null;
  await new Promise((r) => site.close(r));
  await t.cleanup();
});

const text = (r: { content: unknown[] }) => (r.content as { text: string }[]).map((c) => c.text).join('');
const signal = () => new AbortController().signal;

d('stdio servers in the OS sandbox', () => {
  it('writes only in the workspace; reaches only the hosts its configuration lists, through the proxy', async () => {
    writeServers(home, {
      open: fixture('probe.cjs', { network: { hosts: ['127.0.0.1'] } }),
      closed: fixture('probe.cjs'),
      // The person's own settings may take a server out of the sandbox.
      free: fixture('probe.cjs', { sandbox: false }),
    });
    services = testServices(root, { configDir: home });
    await services.mcp.sync();
    const v = Object.fromEntries(services.mcp.list().map((x) => [x.name, x]));
    expect(v.open).toMatchObject({ status: 'ready', sandboxed: true });
    expect(v.closed).toMatchObject({ status: 'ready', sandboxed: true });
    expect(v.free).toMatchObject({ status: 'ready', sandboxed: false });

    const outside = path.join(t.dir, 'outside.txt');
    expect(text(await services.mcp.call('closed', 'write', { path: outside }, { signal: signal() }))).toMatch(/^refused: E(ROFS|ACCES|PERM)/);
    expect(existsSync(outside)).toBe(false);
    expect(text(await services.mcp.call('closed', 'write', { path: path.join(root, 'inside.txt') }, { signal: signal() }))).toBe('wrote');
    expect(text(await services.mcp.call('free', 'write', { path: outside }, { signal: signal() }))).toBe('wrote');

    expect(text(await services.mcp.call('open', 'fetch', { url }, { signal: signal() }))).toBe('got: hello from the host');
    expect(text(await services.mcp.call('closed', 'fetch', { url }, { signal: signal() }))).toMatch(/^failed: /);
    expect(services.networkLog).toEqual(expect.arrayContaining([expect.objectContaining({ command: 'MCP server open', allowed: true, host: expect.stringContaining('127.0.0.1') })]));
  }, 60_000);
});
