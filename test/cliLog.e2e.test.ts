// The CLI's log end to end (built `loupe`): `run` and `mcp` write the user's log file in their
// config folder, owner-only; stderr carries readable lines only where it should; stdout stays
// the answer (run) or the protocol (mcp). Needs `npm run build` first.
import { readFileSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { BIN, runLoupe, useCliFixture } from './support/cli';

const fx = useCliFixture('loupe-clilog-');

const records = (home: string) =>
  readFileSync(path.join(home, 'logs', 'loupe.log'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { event: string; level: string });

async function folder(name: string): Promise<{ ws: string; home: string }> {
  const ws = path.join(fx.sandbox, name, 'ws');
  await mkdir(ws, { recursive: true });
  return { ws, home: path.join(fx.sandbox, name, 'home') };
}

describe('the CLI log', () => {
  it('loupe run: the log file always, stderr only with LOUPE_LOG, stdout only the answer', async () => {
    const { ws, home } = await folder('run');
    const env = { LOUPE_HOME: home, LOUPE_KEYCHAIN: 'off', LOUPE_MODEL: 'scripted', OPENAI_BASE_URL: fx.llm.baseURL, OPENAI_API_KEY: 'k', LOUPE_LOG: undefined };
    fx.llm.enqueue({ content: 'Quiet answer.' });
    const quiet = await runLoupe(['run', '--cwd', ws, 'hi'], { env });
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).not.toMatch(/run\.started|^loupe: info/m);
    expect(quiet.stdout).toContain('Quiet answer.');
    expect(quiet.stdout).not.toContain('run.started');
    expect(records(home).map((r) => r.event)).toContain('run.started');
    expect(statSync(path.join(home, 'logs', 'loupe.log')).mode & 0o777).toBe(0o600);

    fx.llm.enqueue({ content: 'Loud answer.' });
    const loud = await runLoupe(['run', '--cwd', ws, 'hi'], { env: { ...env, LOUPE_LOG: '1' } });
    expect(loud.stderr).toMatch(/^loupe: info run\.started root=/m);
    expect(loud.stdout).toContain('Loud answer.');
    expect(loud.stdout).not.toContain('run.started');
    expect(records(home).filter((r) => r.event === 'run.started')).toHaveLength(2);
  });

  it('loupe mcp: the log file and readable stderr, the protocol alone on stdout', async () => {
    const { ws, home } = await folder('mcp');
    const base = Object.fromEntries(Object.entries(process.env).filter(([k, v]) => v !== undefined && !['LOUPE_MODEL', 'OPENAI_BASE_URL', 'OPENAI_API_KEY', 'LOUPE_LOG'].includes(k))) as Record<string, string>;
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--cwd', ws], env: { ...base, LOUPE_HOME: home, LOUPE_KEYCHAIN: 'off' }, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (d) => (stderr += d));
    const client = new Client({ name: 'loupe-log-e2e', version: '1.0.0' });
    await client.connect(transport); // any stray line on stdout would break the protocol here
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
    expect(records(home).find((r) => r.event === 'mcp.ready')).toMatchObject({ level: 'info' });
    expect(stderr).toMatch(/^loupe: info mcp\.ready root=/m);
  });
});
