// `loupe run` with MCP servers (built `loupe`): a line per server at start on stderr, the model
// calls a server's tool, and a repository's server starts only with --trust (the approval of the
// servers the trusted config names). Needs `npm run build` first.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, toolMessages } from '../agent/agentHarness';
import { runLoupe, useCliFixture } from '../support/cli';
import { FIXTURES, everythingStdio, writeServers } from '../support/mcpServers';

const fx = useCliFixture('loupe-mcp-run-');

describe('loupe run and MCP servers', () => {
  it("prints each server's status, calls a server tool; the repository's server waits for --trust", async () => {
    const ws = path.join(fx.sandbox, 'ws');
    const home = path.join(fx.sandbox, 'home');
    await mkdir(ws, { recursive: true });
    await writeFile(path.join(ws, '.mcp.json'), JSON.stringify({ mcpServers: { helper: { command: process.execPath, args: [path.join(FIXTURES, 'marker.cjs')] } } }));
    writeServers(home, { everything: everythingStdio() }, { permissions: [{ kind: 'mcp', pattern: 'everything/echo', action: 'allow' }] });
    const env = { LOUPE_HOME: home, LOUPE_KEYCHAIN: 'off', LOUPE_MODEL: 'scripted', OPENAI_BASE_URL: fx.llm.baseURL, OPENAI_API_KEY: 'k' };

    fx.llm.enqueue({ toolCalls: [call('c1', 'mcp__everything__echo', { message: 'via run' })] }, { content: 'Echoed.' });
    const first = await runLoupe(['run', '--cwd', ws, 'echo it'], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/^loupe: MCP server everything \(your settings\): ready with \d+ tools(, sandboxed)?$/m);
    expect(first.stderr).toMatch(/^loupe: MCP server helper \(.*\.mcp\.json\): pending: not started: waiting for you to trust this folder/m);
    expect(existsSync(path.join(ws, 'STARTED.marker'))).toBe(false);
    expect(toolMessages(fx.llm.completions.at(-1)!.body).c1).toContain('Echo: via run');
    expect(first.stdout).toContain('Echoed.');

    fx.llm.enqueue({ content: 'Trusted now.' });
    const second = await runLoupe(['run', '--trust', '--cwd', ws, 'again'], { env });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/^loupe: MCP server helper \(.*\.mcp\.json\): ready with 1 tool/m);
    expect(existsSync(path.join(ws, 'STARTED.marker'))).toBe(true);
  }, 90_000);
});
