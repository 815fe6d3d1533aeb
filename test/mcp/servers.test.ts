// The MCP client against real servers (server-everything over stdio, in the OS sandbox where one
// works): connect, list, follow list_changed, answer roots/list with the workspace, call.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WorkspaceServices } from '../../src/main/workspace/compose';
import { everythingStdio, writeServers } from '../support/mcpServers';
import { testServices } from '../support/services';
import { tempDir, until } from '../support/tmp';

let t: { dir: string; cleanup: () => Promise<void> };
let root: string;
let home: string;
let services: WorkspaceServices | null = null;
beforeEach(async () => {
  t = await tempDir('loupe-mcp-servers-');
  root = path.join(t.dir, 'ws');
  home = path.join(t.dir, 'home');
  await mkdir(root);
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
