// grep, code_search, list_files, bash and webfetch through the real tool registry, with the
// permission rules read from the workspace's .loupe/config.json and nobody to approve asks
// (the unattended gate a host without approval cards gets).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, utimes } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../support/toolHarness';

let h: Harness;
let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/away') return res.writeHead(302, { location: 'file:///etc/passwd' }).end();
    res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Local docs</h1><script>steal()</script><p>hello</p>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

beforeEach(async () => {
  h = await harness();
  await h.write('src/a.ts', 'export function alpha() {\n  return beta();\n}\n');
  await h.write('src/b.ts', 'export const beta = () => 1;\n');
});
afterEach(() => h.cleanup());

// The rules are the subject, so the folder is trusted with them as written (as `loupe trust` does).
const rules = async (permissions: unknown[], sandbox?: 'auto' | 'off') => {
  await h.write('.loupe/config.json', JSON.stringify({ permissions, ...(sandbox ? { sandbox } : {}) }, null, 2));
  await h.trust();
};

describe('search tools', () => {
  it('grep: file:line: text, and data', async () => {
    const r = await h.call('grep', { pattern: 'beta', output_mode: 'content' });
    expect(r).toMatchObject({ ok: true, output: 'src/a.ts:2:   return beta();\nsrc/b.ts:1: export const beta = () => 1;', data: { mode: 'content', total: 2 } });
    const files = await h.call('grep', { pattern: 'beta', output_mode: 'files_with_matches', '-C': 1 });
    expect(files.output).toBe('src/a.ts\nsrc/b.ts');
  });

  it('grep: a read deny rule on the path refuses the search', async () => {
    await rules([{ kind: 'read', pattern: 'src/**', action: 'deny' }]);
    const r = await h.call('grep', { pattern: 'beta', path: 'src' });
    expect(r.error?.code).toBe('PERMISSION_DENIED');
  });

  it('grep: bad arguments and paths outside come back as error codes, never throws', async () => {
    expect((await h.call('grep', { pattern: '' })).error?.code).toBe('INVALID_ARGUMENT');
    expect((await h.call('grep', { pattern: 'x', path: '../..' })).error?.code).toBe('PATH_OUTSIDE_WORKSPACE');
    expect((await h.call('grep', { pattern: '(' })).error?.code).toBe('INVALID_ARGUMENT');
  });

  it('code_search ranks the definition first and returns the seed shape', async () => {
    const r = await h.call('code_search', { pattern: 'beta' });
    expect(r.ok).toBe(true);
    expect(r.data).toMatchObject({ total_matches: 2, search_time_ms: expect.any(Number), matches: [{ path: 'src/b.ts', line: 1, context: 'export const beta = () => 1;' }, { path: 'src/a.ts', line: 2 }] });
  });

  it('list_files lists by recency', async () => {
    // Files written a moment apart can share an mtime (the kernel stamps them from a coarse
    // clock), and ties go by path: the older two are put a day back, so the order is the subject.
    const dayAgo = new Date(Date.now() - 86_400_000);
    for (const rel of ['src/a.ts', 'src/b.ts']) await utimes(path.join(h.root, rel), dayAgo, dayAgo);
    await h.write('src/new.ts', 'x');
    const r = await h.call('list_files', { pattern: '*.ts' });
    expect(r.output.split('\n')[0]).toBe('src/new.ts');
    expect(r.data).toMatchObject({ total: 3 });
  });
});

describe('bash tool', () => {
  it('with the sandbox off it asks; with nobody to ask it is denied naming the rule to add, and nothing runs', async () => {
    await rules([], 'off');
    const r = await h.call('bash', { command: 'touch ran.txt', description: 'make a file' });
    expect(r.ok).toBe(false);
    expect(r.error?.code).toBe('PERMISSION_DENIED');
    expect(r.error?.message).toContain('add {"kind":"bash","pattern":"touch *","action":"allow"} to "permissions" in .loupe/config.json');
    await expect(h.read('ran.txt')).rejects.toThrow();
  });

  it('runs what config.json allows, reports exit code, and refuses a compound with a denied part', async () => {
    await rules([
      { kind: 'bash', pattern: 'echo *', action: 'allow' },
      { kind: 'bash', pattern: 'sh *', action: 'allow' },
      { kind: 'bash', pattern: 'rm *', action: 'deny' },
    ]);
    const ok = await h.call('bash', { command: 'echo hello; sh -c "exit 4"', description: 'say hello' });
    expect(ok).toMatchObject({ ok: true, output: 'hello\n\nExit code: 4', data: { exit_code: 4, timed_out: false } });
    const denied = await h.call('bash', { command: 'echo $(rm -rf src)', description: 'sneaky' });
    expect(denied.error).toMatchObject({ code: 'PERMISSION_DENIED', message: expect.stringContaining('deny bash "rm *"') });
    expect(await h.read('src/a.ts')).toContain('alpha');
  });

  it('runs in workdir inside the workspace only', async () => {
    await rules([{ kind: 'bash', pattern: 'pwd', action: 'allow' }]);
    expect((await h.call('bash', { command: 'pwd', workdir: 'src', description: 'where' })).output).toBe(`${path.join(h.root, 'src')}\n\nExit code: 0`);
    expect((await h.call('bash', { command: 'pwd', workdir: '..', description: 'where' })).error?.code).toBe('PATH_OUTSIDE_WORKSPACE');
  });

  it('a timeout is an error with the output so far, and long output points to its saved log', async () => {
    await rules([
      { kind: 'bash', pattern: 'sleep *', action: 'allow' },
      { kind: 'bash', pattern: 'echo *', action: 'allow' },
      { kind: 'bash', pattern: 'seq *', action: 'allow' },
    ]);
    const t0 = Date.now();
    const slow = await h.call('bash', { command: 'echo before; sleep 30', timeout: 500, description: 'wait' });
    expect(Date.now() - t0).toBeLessThan(3500);
    expect(slow).toMatchObject({ ok: false, error: { code: 'TIMEOUT' }, data: { timed_out: true, exit_code: null } });
    expect(slow.output).toMatch(/^before\n\nTimed out after 1 s/);
    const long = await h.call('bash', { command: 'seq 1 200000', description: 'count' });
    const saved = (long.data as { full_output_path: string }).full_output_path;
    expect(saved).toMatch(/^\.loupe\/outputs\/cmd-.*\.log$/);
    expect((await readFile(path.join(h.root, saved), 'utf8')).split('\n')).toHaveLength(200001);
    expect(long.output).toContain('\n200000\n');
    expect(long.output.length).toBeLessThan(35_000);
  });

  it('by default it runs inside the sandbox without a question, and says so', async () => {
    const r = await h.call('bash', { command: 'touch ran.txt', description: 'make a file' });
    expect(r, r.output).toMatchObject({ ok: true, data: { exit_code: 0, sandboxed: true } });
    expect(await h.read('ran.txt')).toBe('');
  });

  it('by default a redirect outside the workspace is blocked by the sandbox, named, and nothing is written', async () => {
    await rules([{ kind: 'bash', pattern: 'echo *', action: 'allow' }]);
    const target = path.join(h.sandbox, 'outside.txt');
    const r = await h.call('bash', { command: `echo leak > ${target}`, description: 'write outside' });
    expect(r.error, r.output).toMatchObject({ code: 'SANDBOX_BLOCKED', message: expect.stringContaining(`blocked by the sandbox: write to ${target}`) });
    expect(existsSync(target)).toBe(false);
  });

  it('external paths: with the sandbox off a redirect outside the workspace needs its own rule', async () => {
    await rules([{ kind: 'bash', pattern: 'echo *', action: 'allow' }], 'off');
    const target = path.join(h.sandbox, 'outside.txt');
    const r = await h.call('bash', { command: `echo leak > ${target}`, description: 'write outside' });
    expect(r.error?.code).toBe('PERMISSION_DENIED');
    expect(r.error?.message).toContain(`{"kind":"external_directory","pattern":"${h.sandbox}/**","action":"allow"}`);
    expect(() => execFileSync('cat', [target], { stdio: 'pipe' })).toThrow();
  });
});

describe('webfetch tool', () => {
  it('a loopback address is asked about even under a wildcard allow rule', async () => {
    await rules([{ kind: 'webfetch', pattern: 'http://*', action: 'allow' }]);
    const r = await h.call('webfetch', { url: `${base}/` });
    expect(r.error?.code).toBe('PERMISSION_DENIED');
    expect(r.error?.message).toContain('resolves to 127.0.0.1 (loopback)');
  });

  it('an allow rule naming the local host lets it through, as Markdown inside untrusted markers', async () => {
    await rules([{ kind: 'webfetch', pattern: 'http://127.0.0.1*', action: 'allow' }]);
    const r = await h.call('webfetch', { url: `${base}/` });
    expect(r.ok).toBe(true);
    expect(r.output).toMatch(/<<<untrusted-web-content [0-9a-f]+>>>\n# Local docs\n\nhello\n<<<end-untrusted-web-content [0-9a-f]+>>>$/);
    expect(r.output).not.toContain('steal');
    expect(r.data).toMatchObject({ status: 200, format: 'markdown' });
  });

  it('refuses file:// before asking anyone, and a redirect to it', async () => {
    expect((await h.call('webfetch', { url: 'file:///etc/passwd' })).error?.code).toBe('INVALID_ARGUMENT');
    await rules([{ kind: 'webfetch', pattern: 'http://127.0.0.1*', action: 'allow' }]);
    expect((await h.call('webfetch', { url: `${base}/away` })).error).toMatchObject({ code: 'FETCH_FAILED', message: expect.stringContaining('file:///etc/passwd') });
  });
});
