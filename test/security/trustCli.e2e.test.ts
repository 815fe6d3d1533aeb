// Workspace trust and run_tests through the built CLI (`node bin/loupe.mjs …`) against the
// scripted model, on repositories cloned with real git: a clone's .loupe/config.json grants
// nothing until the person trusts it (`--trust`, `loupe trust`), and no test command runs
// without a yes. The issue's attack is a package.json test script that sends .env away; here it
// writes a marker file outside the repository instead. Needs `npx electron-vite build` first.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, toolMessages } from '../agent/agentHarness';
import { BIN, runLoupe, useCliFixture } from '../support/cli';
import { git, until, writeTree } from '../support/tmp';
import { writeUserSettings } from '../support/userSettings';

const fx = useCliFixture('loupe-trust-cli-');
let n = 0;

interface Clone {
  dir: string;
  /** The user's config folder for this test (LOUPE_HOME): trust is kept there. */
  home: string;
  /** A file outside the repository that the hostile code writes when it runs. */
  marker: string;
}

/** A repository published with its own .loupe/config.json, cloned the way a person would. */
async function clone(files: Record<string, string>): Promise<Clone> {
  const id = ++n;
  const origin = path.join(fx.sandbox, `origin${id}`);
  const marker = path.join(fx.sandbox, `marker${id}`);
  const withMarker = Object.fromEntries(Object.entries(files).map(([k, v]) => [k, v.split('MARKER').join(marker)]));
  await writeTree(origin, { 'test.js': `require('fs').writeFileSync(${JSON.stringify(marker)}, 'ran');\nconsole.log('1 test passed');\n`, ...withMarker });
  git(origin, 'init', '-q');
  git(origin, 'add', '-A');
  git(origin, 'commit', '-qm', 'init');
  const dir = path.join(fx.sandbox, `clone${id}`);
  git(fx.sandbox, 'clone', '-q', origin, dir);
  // The questions are the subject, so the sandbox is off (sandboxMcp and sandboxCli cover it on).
  const home = path.join(fx.sandbox, `home${id}`);
  writeUserSettings(home, { sandbox: 'off' });
  return { dir, home, marker };
}

const loupe = (c: Clone, args: string[]) =>
  runLoupe(args, { cwd: c.dir, env: { LOUPE_HOME: c.home, LOUPE_MODEL: 'scripted', OPENAI_BASE_URL: fx.llm.baseURL, OPENAI_API_KEY: 'k' } });

/** Starts a long-running command (mcp, serve), returns its stderr once `until` holds, then stops it. */
async function stderrOf(c: Clone, args: string[], ready: (stderr: string) => boolean): Promise<string> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: c.dir, env: { ...process.env, LOUPE_HOME: c.home }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  try {
    await until(() => ready(stderr), 15_000);
    return stderr;
  } finally {
    child.kill('SIGTERM');
  }
}

const exists = (p: string) => readFile(p).then(() => true, () => false);
const trustedIn = async (c: Clone): Promise<Record<string, { config_sha256: string }>> =>
  JSON.parse(await readFile(path.join(c.home, 'settings.json'), 'utf8').catch(() => '{}')).trusted_folders ?? {};
const sha256 = async (file: string) => createHash('sha256').update(await readFile(file)).digest('hex');

const ALLOW_NODE = { '.loupe/config.json': JSON.stringify({ permissions: [{ kind: 'bash', pattern: 'node *', action: 'allow' }, { kind: 'bash', pattern: 'curl *', action: 'deny' }] }) };
const runNode = () => {
  fx.llm.requests.length = 0;
  fx.llm.enqueue({ toolCalls: [call('b1', 'bash', { command: 'node test.js', description: 'run the tests' })] }, { content: 'done' });
};

describe('a cloned repository’s .loupe/config.json', () => {
  it('loupe run ignores its allow rules and says so on stderr: the command asks, --deny refuses it, nothing runs', async () => {
    const c = await clone(ALLOW_NODE);
    runNode();
    const r = await loupe(c, ['run', '--deny', 'run the tests']);
    expect(r.code).toBe(0);
    const notice = r.stderr.split('\n').filter((l) => l.includes('is not trusted'));
    expect(notice).toHaveLength(1);
    expect(notice[0]).toContain(c.dir);
    expect(notice[0]).toContain('allow bash "node *"');
    expect(notice[0]).toContain('--trust');
    expect(notice[0]).toContain(`loupe trust ${c.dir}`);
    expect(toolMessages(fx.llm.completions[1].body).b1).toMatch(/PERMISSION_DENIED.*needs approval/);
    expect(await exists(c.marker)).toBe(false);
    expect(await trustedIn(c)).toEqual({});
  });

  it('its deny rules apply untrusted', async () => {
    const c = await clone(ALLOW_NODE);
    fx.llm.enqueue({ toolCalls: [call('b1', 'bash', { command: 'curl https://x.example', description: 'x' })] }, { content: 'done' });
    await loupe(c, ['run', '--yes', 'fetch']);
    expect(toolMessages(fx.llm.completions[1].body).b1).toMatch(/PERMISSION_DENIED\]: Denied by the rule deny bash "curl \*"/);
  });

  it('--trust applies them now and remembers the trust for this content; one byte changed needs trust again', async () => {
    const c = await clone(ALLOW_NODE);
    runNode();
    const r = await loupe(c, ['run', '--deny', '--trust', 'run the tests']);
    expect(r.stderr).toContain(`loupe: trusted ${c.dir} with .loupe/config.json`);
    expect(r.stderr).not.toContain('is not trusted');
    expect(toolMessages(fx.llm.completions[1].body).b1).toContain('1 test passed');
    expect(await exists(c.marker)).toBe(true);
    const cfg = path.join(c.dir, '.loupe/config.json');
    expect(await trustedIn(c)).toEqual({ [c.dir]: expect.objectContaining({ config_sha256: await sha256(cfg) }) });

    // Remembered: the next run needs no flag.
    runNode();
    const again = await loupe(c, ['run', '--deny', 'run the tests']);
    expect(again.stderr).not.toContain('is not trusted');
    expect(toolMessages(fx.llm.completions[1].body).b1).toContain('1 test passed');

    // A pull that changes one byte (here a space) is new content: asked again.
    await writeFile(cfg, `${await readFile(cfg, 'utf8')} `);
    runNode();
    const changed = await loupe(c, ['run', '--deny', 'run the tests']);
    expect(changed.stderr).toContain('is not trusted');
    expect(toolMessages(fx.llm.completions[1].body).b1).toMatch(/PERMISSION_DENIED/);
  });

  it('loupe trust records the trust without running anything and prints what it trusted', async () => {
    const c = await clone({ ...ALLOW_NODE, 'sub/x.txt': 'x' });
    const r = await loupe(c, ['trust', c.dir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`trusted ${c.dir} with .loupe/config.json`);
    expect(r.stdout).toContain('allow bash "node *"');
    expect(await exists(c.marker)).toBe(false);
    expect(Object.keys(await trustedIn(c))).toEqual([c.dir]);
    expect(fx.llm.completions).toHaveLength(0);
    // The folder defaults to the current one.
    const d = await clone(ALLOW_NODE);
    expect((await loupe(d, ['trust'])).stdout).toContain(`trusted ${d.dir}`);
    runNode();
    const run = await loupe(c, ['run', '--deny', 'run the tests']);
    expect(run.stderr).not.toContain('is not trusted');
    expect(toolMessages(fx.llm.completions[1].body).b1).toContain('1 test passed');
  });

  it('loupe mcp and loupe serve say so too, and take --trust', async () => {
    const c = await clone(ALLOW_NODE);
    const mcp = await stderrOf(c, ['mcp'], (s) => s.includes('mcp.ready'));
    expect(mcp).toContain(`${c.dir} is not trusted`);
    const serve = await stderrOf(c, ['serve', '--port', '0'], (s) => s.includes('serving'));
    expect(serve).toContain(`${c.dir} is not trusted`);
    expect(await trustedIn(c)).toEqual({});
    const trusted = await stderrOf(c, ['mcp', '--trust'], (s) => s.includes('mcp.ready'));
    expect(trusted).toContain(`loupe: trusted ${c.dir}`);
    expect(Object.keys(await trustedIn(c))).toEqual([c.dir]);
    const d = await clone(ALLOW_NODE);
    expect(await stderrOf(d, ['serve', '--port', '0', '--trust'], (s) => s.includes('serving'))).toContain(`loupe: trusted ${d.dir}`);
    expect(Object.keys(await trustedIn(d))).toEqual([d.dir]);
  });
});

describe('run_tests', () => {
  const HOSTILE = { 'package.json': JSON.stringify({ name: 'p', scripts: { test: `node -e "require('fs').writeFileSync('MARKER', 'sent .env')"` } }), '.env': 'SECRET=1\n' };
  const runTests = (args: Record<string, unknown> = {}) => {
    fx.llm.requests.length = 0;
    fx.llm.enqueue({ toolCalls: [call('t1', 'run_tests', args)] }, { content: 'done' });
  };

  it('under --deny a hostile package.json test script is refused with the rule to add, and never runs', async () => {
    // Even a config (untrusted) that allows it, and with the model's own test_command.
    const c = await clone({ ...HOSTILE, '.loupe/config.json': JSON.stringify({ permissions: [{ kind: 'test', pattern: '*', action: 'allow' }] }) });
    runTests();
    await loupe(c, ['run', '--deny', 'run the tests']);
    const told = toolMessages(fx.llm.completions[1].body).t1;
    expect(told).toContain('PERMISSION_DENIED');
    // The card shows the exact command line and what the script it runs says.
    expect(told).toContain('npm test --silent');
    expect(told).toContain(`"test": ${JSON.stringify(`node -e "require('fs').writeFileSync('${c.marker}', 'sent .env')"`)}`);
    expect(told).toContain('{"kind":"test","pattern":"npm test *","action":"allow"}');
    runTests({ test_command: 'npm test' });
    await loupe(c, ['run', '--deny', 'run the tests']);
    expect(toolMessages(fx.llm.completions[1].body).t1).toContain('PERMISSION_DENIED');
    expect(await exists(c.marker)).toBe(false);
  });

  it('an untrusted config’s test command is not used, even when asks are allowed; once trusted it is', async () => {
    const c = await clone({ '.loupe/config.json': JSON.stringify({ tests: { javascript: 'node test.js' } }) });
    runTests();
    await loupe(c, ['run', '--yes', 'run the tests']);
    expect(toolMessages(fx.llm.completions[1].body).t1).toContain('No test command found');
    expect(await exists(c.marker)).toBe(false);
    runTests();
    const r = await loupe(c, ['run', '--yes', '--trust', 'run the tests']);
    expect(r.stderr).toContain('(allowed by --yes: node test.js');
    expect(toolMessages(fx.llm.completions[1].body).t1).toContain('1 test passed');
    expect(await exists(c.marker)).toBe(true);
  });
});
