// One broken config, three front ends: the app's Host, the built `loupe run` and the built
// `loupe mcp` read `.loupe/config.json` and `settings.json` through the same readers. An unknown
// key and a malformed rule are reported once each, with line and column, the same everywhere;
// `search.exclude` still keeps files out of grep, and the good rule still allows. The model comes
// from the app's settings alone (no environment variable). Needs `npx electron-vite build` first.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ChatEvent, HostEvents } from '../../src/shared/contract';
import { Host } from '../../src/main/host/host';
import { trustCurrentConfig } from '../../src/main/services/permissions/trust';
import { UserSettings } from '../../src/main/services/settings/userSettings';
import { BIN, runLoupe, useCliFixture } from '../support/cli';
import { git, until, writeTree } from '../support/tmp';
import { call, toolMessages } from './agentHarness';

const fx = useCliFixture('loupe-config-problems-');

const CONFIG = `{
  "search": { "exclude": ["generated/**"] },
  "colour": "blue",
  "permissions": [
    { "kind": "bash", "pattern": "echo *", "action": "allow" },
    { "kind": "shell", "pattern": "rm *", "action": "deny" }
  ]
}
`;

const MODEL_ENV = ['OPENAI_BASE_URL', 'OPENAI_API_KEY', 'LOUPE_MODEL', 'LOUPE_CONTEXT_TOKENS'];
let dir: string;
let home: string;
let env: Record<string, string | undefined>;

beforeAll(async () => {
  dir = path.join(fx.sandbox, 'repo');
  home = path.join(fx.sandbox, 'home');
  await writeTree(dir, {
    'src/a.ts': 'export const needle = 1;\n',
    'generated/b.ts': 'export const needle = 2;\n',
    '.loupe/config.json': CONFIG,
  });
  git(dir, 'init', '-q');
  // The model as the app's settings dialog saves it, and one key Loupe does not know.
  await writeTree(home, { 'settings.json': JSON.stringify({ theme: 'dark', llm: { base_url: fx.llm.baseURL, model: 'from-settings', api_key: 'sk-settings' } }, null, 2) });
  await trustCurrentConfig(dir, new UserSettings(home));
  env = { LOUPE_HOME: home, LOUPE_KEYCHAIN: 'off', ...Object.fromEntries(MODEL_ENV.map((k) => [k, undefined])) };
});

/** The problem lines, as each front end says them. */
const expected = () => [
  expect.stringMatching(/^\.loupe\/config\.json:3:3: colour: unknown key "colour", ignored/),
  expect.stringMatching(/^\.loupe\/config\.json:6:7: permissions\[1\]\.kind: .*ignored/),
  expect.stringMatching(new RegExp(`^${path.join(home, 'settings.json').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:\\d+:3: theme: unknown key "theme", ignored`)),
];
const problemLines = (stderr: string) =>
  stderr
    .split('\n')
    .flatMap((l) => (l.startsWith('loupe: ') && /:\d+:\d+: /.test(l) ? [l.slice('loupe: '.length)] : []))
    .sort();

const grepThenEcho = () => [
  { toolCalls: [call('g1', 'grep', { pattern: 'needle', output_mode: 'files_with_matches' })] },
  { toolCalls: [call('b1', 'bash', { command: 'echo allowed-by-rule', description: 'say it' })] },
  { content: 'Done.' },
];

/** What the model was told by grep and bash in the last request. */
function told() {
  const last = fx.llm.completions.at(-1)!;
  expect(last.body.model).toBe('from-settings');
  return toolMessages(last.body);
}

const seen: Record<string, string[]> = {};

describe('one broken config through the app, loupe run and loupe mcp', () => {
  it('the app: notices with line:column once each; grep excludes, the good rule allows', async () => {
    const saved = MODEL_ENV.map((k) => [k, process.env[k]] as const);
    for (const k of MODEL_ENV) delete process.env[k];
    const host = new Host({ transport: 'websocket', configDir: home });
    const events: ChatEvent[] = [];
    host.onEvent((ch, p) => ch === 'chat.event' && events.push((p as HostEvents['chat.event']).event));
    try {
      const info = await host.open(dir);
      fx.llm.enqueue(...grepThenEcho());
      await host.handle('chat.send', { text: 'find needle' });
      await until(() => events.find((e) => e.type === 'request_finished'), 20_000);
      const t = told();
      expect(t.g1).toContain('src/a.ts');
      expect(t.g1).not.toContain('generated/');
      expect(t.b1).toContain('allowed-by-rule');
      seen.app = [...(info.notices ?? [])].sort();
      expect(seen.app).toEqual(expected());
    } finally {
      await host.dispose();
      for (const [k, v] of saved) if (v !== undefined) process.env[k] = v;
    }
  });

  it('loupe run: the same problems on stderr, once; grep excludes, the good rule allows; the model from settings', async () => {
    fx.llm.enqueue(...grepThenEcho());
    const r = await runLoupe(['run', '--cwd', dir, '--deny', 'find needle'], { env });
    expect(r.code, r.stderr).toBe(0);
    const t = told();
    expect(t.g1).toContain('src/a.ts');
    expect(t.g1).not.toContain('generated/');
    expect(t.b1).toContain('allowed-by-rule');
    seen.run = problemLines(r.stderr);
    expect(seen.run).toEqual(expected());
  });

  it('loupe mcp: the same problems on stderr, once; grep excludes, the good rule allows; the edit corrector uses the model from settings', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--cwd', dir], env: Object.fromEntries(Object.entries({ ...process.env, ...env }).filter((e): e is [string, string] => e[1] !== undefined)), stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (d) => (stderr += d));
    const client = new Client({ name: 'config-problems', version: '1.0.0' });
    await client.connect(transport);
    try {
      const text = (r: Awaited<ReturnType<Client['callTool']>>) => (r.content as { text: string }[])[0].text;
      const g = await client.callTool({ name: 'grep', arguments: { pattern: 'needle', output_mode: 'files_with_matches' } });
      expect(text(g)).toContain('src/a.ts');
      expect(text(g)).not.toContain('generated/');
      const b = await client.callTool({ name: 'bash', arguments: { command: 'echo allowed-by-rule', description: 'say it' } });
      expect(b.isError).not.toBe(true);
      expect(text(b)).toContain('allowed-by-rule');
      // The edit corrector's model: the one the app's settings name, no environment variable set.
      expect(stderr).toMatch(/mcp\.ready .*llm=from-settings/);
    } finally {
      await client.close();
    }
    seen.mcp = problemLines(stderr);
    expect(seen.mcp).toEqual(expected());
  });

  it('the app: a problem written while the folder is open becomes one notice; a change that keeps it says nothing more', async () => {
    const host = new Host({ transport: 'websocket', configDir: home });
    const notices: string[] = [];
    host.onEvent((ch, p) => ch === 'workspace.notice' && notices.push((p as HostEvents['workspace.notice']).message));
    try {
      await host.open(dir);
      const before = notices.length;
      await writeFile(path.join(dir, '.loupe/config.json'), CONFIG.replace('"colour": "blue",', '"colour": "blue",\n  "limits": { "test_timeout_ms": "soon" },'));
      const said = await until(() => notices.slice(before).find((m) => m.includes('limits.test_timeout_ms')), 10_000);
      expect(said).toMatch(/^\.loupe\/config\.json:4:15: limits\.test_timeout_ms: /);
      await writeFile(path.join(dir, '.loupe/config.json'), CONFIG.replace('"colour": "blue",', '"colour": "blue",\n  "limits": { "test_timeout_ms": "soon" },\n  "languages": ["go"],'));
      await new Promise((r) => setTimeout(r, 1500));
      expect(notices.slice(before)).toEqual([said]);
    } finally {
      await host.dispose();
      await writeFile(path.join(dir, '.loupe/config.json'), CONFIG);
    }
  });

  it('all three said exactly the same lines', () => {
    expect(seen.app).toHaveLength(3);
    expect(seen.run).toEqual(seen.app);
    expect(seen.mcp).toEqual(seen.app);
  });
});
