// Inside the OS sandbox a command cannot write outside the workspace, read the user's
// credentials, rewrite .git hooks/config or .loupe, reach a server on 127.0.0.1 without a
// network grant, or leave a process behind; every case has a positive control that proves the
// same command works where it is allowed. Real bwrap, real git, real HTTP server.
// Until the gate grants the sandbox itself, the tool layer is driven with an explicit grant;
// SANDBOX_E2E below switches these to `loupe mcp` once it does.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bashTool } from '../../src/main/agent/tools/bash';
import { runTestsTool } from '../../src/main/agent/tools/runTests';
import type { ToolContext } from '../../src/main/agent/tools/types';
import { CREDENTIAL_PATHS } from '../../src/main/services/sandbox/credentials';
import { probeSandbox } from '../../src/main/services/sandbox/probe';
import type { SandboxGrant } from '../../src/main/services/sandbox/types';
import { runCommand } from '../../src/main/services/shell/commandRunner';
import { git, tempDir } from '../support/tmp';

const availability = await probeSandbox();
if (!availability.available) console.warn(`sandbox tests skipped: ${availability.reason} (${availability.install ?? 'no install hint'})`);
const d = availability.available && availability.kind === 'bwrap' ? describe : describe.skip;

const CLOSED: SandboxGrant = { network: false, networkRule: null };
const OPEN: SandboxGrant = { network: true, networkRule: 'test' };

let ws: { dir: string; cleanup: () => Promise<void> };
let outside: { dir: string; cleanup: () => Promise<void> };
let home: string;
afterEach(async () => {
  await ws?.cleanup();
  await outside?.cleanup();
});

async function setup(): Promise<string> {
  ws = await tempDir('loupe-sbx-ws-');
  // Outside the workspace, where the sandbox binds the file system read-only.
  const dir = realpathSync(mkdtempSync('/var/tmp/loupe-sbx-out-'));
  outside = { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
  git(ws.dir, 'init', '-q');
  writeFileSync(path.join(ws.dir, 'a.txt'), 'a\n');
  mkdirSync(path.join(ws.dir, '.loupe'), { recursive: true });
  writeFileSync(path.join(ws.dir, '.loupe', 'config.json'), '{}\n');
  // A fake HOME inside the workspace, so its credentials are visible to the sandbox and only
  // the hiding can keep them away.
  home = path.join(ws.dir, 'home');
  for (const k of ['id_rsa', 'id_ed25519']) {
    mkdirSync(path.join(home, '.ssh'), { recursive: true });
    writeFileSync(path.join(home, '.ssh', k), `PRIVATE KEY ${k}\n`);
  }
  mkdirSync(path.join(home, '.aws'), { recursive: true });
  writeFileSync(path.join(home, '.aws', 'credentials'), 'aws_secret=1\n');
  mkdirSync(path.join(home, '.config', 'gh'), { recursive: true });
  writeFileSync(path.join(home, '.config', 'gh', 'hosts.yml'), 'oauth_token: gho_1\n');
  for (const f of ['.netrc', '.npmrc', '.git-credentials']) writeFileSync(path.join(home, f), `secret ${f}\n`);
  return ws.dir;
}

const run = (command: string, grant: SandboxGrant | null = CLOSED) =>
  runCommand({ command, cwd: ws.dir, timeoutMs: 20_000, ...(grant ? { sandbox: { root: ws.dir, grant, home } } : {}) });

d('sandboxed writes', () => {
  const targets = () => [path.join(outside.dir, 'x'), '/tmp/x-$$', path.join(process.env.HOME ?? '/root', 'loupe-sbx-x'), '/etc/loupe-sbx', '/usr/local/loupe-sbx', path.join(home, 'x')];
  it.each(['echo pwned > T', 'touch T', 'cp a.txt T', 'sh -c "cat a.txt > T"', 'python3 -c "open(\'T\',\'w\').write(\'x\')"', 'node -e "require(\'fs\').writeFileSync(\'T\',\'x\')"'])(
    '%s cannot write outside the workspace, and works inside',
    async (shape) => {
      await setup();
      for (const t of targets()) {
        if (t === path.join(home, 'x')) continue; // the fake home is inside the workspace
        const r = await run(shape.replaceAll('T', t));
        expect(r.exitCode, `${t}: ${r.text}`).not.toBe(0);
        expect(r.blocked, r.text).toMatch(/^write to /);
        expect(existsSync(t)).toBe(false);
      }
      const inside = await run(shape.replaceAll('T', path.join(ws.dir, 'ok.txt')));
      expect(inside.exitCode, inside.text).toBe(0);
      expect(inside.blocked).toBeNull();
      expect(existsSync(path.join(ws.dir, 'ok.txt'))).toBe(true);
      // Positive control: outside the sandbox the same write lands.
      const plain = await run(shape.replaceAll('T', path.join(outside.dir, 'x')), null);
      expect(plain.exitCode, plain.text).toBe(0);
      expect(existsSync(path.join(outside.dir, 'x'))).toBe(true);
    },
  );

  it('npm install works inside: its cache moves to the private temp folder (HOME is read-only)', async () => {
    await setup();
    const dep = path.join(ws.dir, 'dep');
    mkdirSync(dep);
    writeFileSync(path.join(dep, 'package.json'), JSON.stringify({ name: 'loupe-sbx-dep', version: '1.0.0' }));
    writeFileSync(path.join(ws.dir, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0' }));
    // A tarball goes through npm's cache (a folder dependency would only be linked).
    const pack = spawnSync('npm', ['pack', '--silent', './dep'], { cwd: ws.dir, encoding: 'utf8' });
    expect(pack.status, pack.stderr).toBe(0);
    const r = await run(`npm install --offline --no-audit --no-fund ./${pack.stdout.trim()}`);
    expect(r.exitCode, r.text).toBe(0);
    expect(r.blocked).toBeNull();
    expect(existsSync(path.join(ws.dir, 'node_modules', 'loupe-sbx-dep', 'package.json'))).toBe(true);
  });

  it('$TMPDIR is a private folder, fresh per command; /tmp itself is read but not written', async () => {
    await setup();
    const mark = `loupe-sbx-${process.pid}-${Date.now()}`;
    const first = await run(`echo x > "$TMPDIR/${mark}" && cat "$TMPDIR/${mark}" && mktemp`);
    expect(first.text, first.text).toMatch(/^x\n/);
    expect((await run(`cat "$TMPDIR/${mark}"`)).exitCode).not.toBe(0);
    // The host's /tmp is visible read-only (a tool or checkout living there still runs) ...
    writeFileSync(`/tmp/${mark}-host`, 'from the host\n');
    try {
      expect((await run(`cat /tmp/${mark}-host`)).text).toContain('from the host');
      // ... and a write to it is refused and named, never kept in a throwaway copy.
      const w = await run(`echo x > /tmp/${mark}`);
      expect(w.blocked, w.text).toBe(`write to /tmp/${mark}`);
      expect(existsSync(`/tmp/${mark}`)).toBe(false);
    } finally {
      rmSync(`/tmp/${mark}-host`, { force: true });
    }
  });

  it.each(['.git/hooks/pre-commit', '.git/config', '.git/info/attributes', '.loupe/config.json', '.loupe/new.json'])('%s is read-only inside', async (rel) => {
    await setup();
    const before = existsSync(path.join(ws.dir, rel)) ? readFileSync(path.join(ws.dir, rel), 'utf8') : null;
    const r = await run(`echo '[core] hooksPath=/x' > ${rel}`);
    expect(r.exitCode).not.toBe(0);
    expect(r.blocked).toBe(`write to ${rel}`);
    expect(existsSync(path.join(ws.dir, rel)) ? readFileSync(path.join(ws.dir, rel), 'utf8') : null).toBe(before);
    const plain = await run(`echo '# ok' >> ${rel}`, null);
    expect(plain.exitCode, plain.text).toBe(0);
  });

  it('git add, commit and stash work inside', async () => {
    await setup();
    const r = await run('git add a.txt && git -c user.email=a@b -c user.name=a commit -qm one && echo b >> a.txt && git stash -q && git log --oneline && git stash list');
    expect(r.exitCode, r.text).toBe(0);
    expect(r.text).toMatch(/one/);
    expect(r.text).toMatch(/stash@\{0\}/);
  });
});

d('sandboxed reads of credentials', () => {
  const SECRETS = ['.ssh/id_rsa', '.ssh/id_ed25519', '.aws/credentials', '.config/gh/hosts.yml', '.netrc', '.npmrc', '.git-credentials'];
  it.each(SECRETS)('~/%s cannot be read inside, and can outside', async (rel) => {
    await setup();
    const file = path.join(home, rel);
    const r = await run(`cat ${file}`);
    expect(r.text).not.toMatch(/PRIVATE KEY|secret|gho_1/);
    const plain = await run(`cat ${file}`, null);
    expect(plain.text).toMatch(/PRIVATE KEY|secret|gho_1/);
  });

  // Every listed credential, planted both as a folder holding a secret and as a file.
  it.each(CREDENTIAL_PATHS.flatMap((rel) => [[rel, 'dir'], [rel, 'file']] as const))('~/%s as a %s is hidden', async (rel, kind) => {
    await setup();
    const abs = path.join(home, rel);
    await rm(abs, { recursive: true, force: true });
    mkdirSync(kind === 'dir' ? abs : path.dirname(abs), { recursive: true });
    const file = kind === 'dir' ? path.join(abs, 'token') : abs;
    writeFileSync(file, 'TOPSECRET\n');
    expect((await run(`cat ${file}; grep -r TOPSECRET ${home} 2>/dev/null`)).text).not.toContain('TOPSECRET');
    expect((await run(`cat ${file}`, null)).text).toContain('TOPSECRET');
  });

  it('paths behind a read deny rule are hidden too', async () => {
    await setup();
    writeFileSync(path.join(ws.dir, '.env'), 'SECRET=1\n');
    const r = await runCommand({ command: 'cat .env', cwd: ws.dir, sandbox: { root: ws.dir, grant: CLOSED, home, hide: [path.join(ws.dir, '.env')] } });
    expect(r.text).not.toMatch(/SECRET/);
    expect((await run('cat .env')).text).toMatch(/SECRET=1/);
  });
});

d('sandboxed network', () => {
  let server: http.Server;
  let port: number;
  beforeAll(async () => {
    server = http.createServer((_q, s) => s.end('reached'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  // With a grant, the way out is the proxy, which lets through only a host a rule names: here
  // `allowed.test`, resolved by the test to this machine's server and named exactly.
  const granted = (command: string) =>
    runCommand({
      command,
      cwd: ws.dir,
      timeoutMs: 20_000,
      sandbox: {
        root: ws.dir,
        grant: OPEN,
        home,
        network: {
          guard: { decide: async (t) => ({ allowed: t.host === 'allowed.test', named: t.host === 'allowed.test', reason: `${t.host} is not allowed.test` }) },
          lookup: async (h) => (h === 'allowed.test' ? [{ address: '127.0.0.1', family: 4 }] : []),
        },
      },
    });
  it.each([
    ['curl', (h: string) => `curl -sS --max-time 5 http://${h}:${port}/`],
    // Node's http client does not read the proxy variables: it speaks to the proxy itself.
    ['node', (h: string) => `node -e "const u=new URL(process.env.HTTP_PROXY||'http://127.0.0.1:${port}');require('http').get(process.env.HTTP_PROXY?{host:u.hostname,port:u.port,path:'http://${h}:${port}/'}:'http://${h}:${port}/',r=>r.pipe(process.stdout)).on('error',e=>{console.error(e.message);process.exit(1)})"`],
    ['python', (h: string) => `python3 -c "import urllib.request;print(urllib.request.urlopen('http://${h}:${port}/').read())"`],
  ])('%s cannot reach 127.0.0.1:PORT without a grant, and can with a rule naming the host', async (_n, cmd) => {
    await setup();
    const r = await run(cmd('127.0.0.1'));
    expect(r.exitCode).not.toBe(0);
    expect(r.text).not.toMatch(/reached/);
    // The result names this machine's port and says no rule names it (the gate adds which rule would).
    if (_n !== 'python') expect(r.blocked).toBe(`network access to 127.0.0.1:${port} (this machine's 127.0.0.1:${port} is outside the sandbox, and no network rule names it)`);
    else expect(r.blocked).toMatch(/^network access/);
    // The grant does not open 127.0.0.1 itself (no route, or the proxy refuses it)…
    expect((await granted(cmd('127.0.0.1'))).text).not.toMatch(/reached/);
    // …only the named host, through the proxy.
    const ok = await granted(cmd('allowed.test'));
    expect(ok.exitCode, ok.text).toBe(0);
    expect(ok.text).toMatch(/reached/);
    expect(ok.blocked).toBeNull();
    expect(ok.network?.reached).toEqual([`allowed.test:${port}`]);
  });
});

d('sandboxed processes', () => {
  it('keep the real uid, gain no privileges and see only their own pid namespace', async () => {
    await setup();
    const r = await run('id -u; grep NoNewPrivs /proc/self/status; ls /proc | grep -c "^[0-9]"');
    const [uid, nnp, pids] = r.text.trim().split('\n');
    expect(uid).toBe(String(process.getuid!()));
    expect(nnp).toMatch(/NoNewPrivs:\s+1/);
    expect(Number(pids)).toBeLessThan(10);
    const plain = await run('ls /proc | grep -c "^[0-9]"', null);
    expect(Number(plain.text.trim())).toBeGreaterThan(Number(pids));
  });

  it.each(['sleep 1000 &', 'nohup sleep 1000 >/dev/null 2>&1 &', 'setsid sleep 1000 &', '(setsid sh -c "sleep 1000 &" &)'])('%s leaves nothing behind', async (shape) => {
    await setup();
    const tag = `${1000 + Math.floor(Math.random() * 1000)}`;
    const r = await run(`${shape.replace('1000', tag)}\necho started`);
    expect(r.exitCode, r.text).toBe(0);
    expect(r.sandboxed).toBe(true);
    const left = spawnSync('pgrep', ['-f', `^sleep ${tag}$`], { encoding: 'utf8' }).stdout.trim();
    expect(left).toBe('');
  });
});

d('sandboxed lifetimes', () => {
  it('a timeout kills the sandbox and all inside it, and the private temp folder is removed', async () => {
    await setup();
    const mark = `loupe-sbx-mark-${process.pid}-${Date.now()}`;
    const r = await runCommand({ command: `touch "$TMPDIR/${mark}"; sleep 1593 & sleep 1593`, cwd: ws.dir, timeoutMs: 500, sandbox: { root: ws.dir, grant: CLOSED, home } });
    expect(r.timedOut).toBe(true);
    expect(spawnSync('pgrep', ['-f', '^sleep 1593$'], { encoding: 'utf8' }).stdout.trim()).toBe('');
    const left = spawnSync('sh', ['-c', `ls -d ${os.tmpdir()}/loupe-sbx-*/${mark} 2>/dev/null`], { encoding: 'utf8' }).stdout.trim();
    expect(left).toBe('');
  });
});

d('the bash tool with a sandbox grant', () => {
  const ctx = (grant: SandboxGrant | null, seen: unknown[] = []): ToolContext =>
    ({
      root: ws.dir,
      signal: new AbortController().signal,
      session: { id: 'sandbox-test' },
      // What a command writes is another test's subject (test/tools/commandWrites): here it just runs.
      captures: { around: async (_req: unknown, run: () => Promise<unknown>) => ({ value: await run(), capture: { group_id: null, files: [], ignored_changed: null, not_recorded: [] } }) },
      permissions: {
        authorize: async (input: unknown) => (seen.push(input), { decision: { action: 'allow' }, by: 'rule', sandbox: grant }),
        project: async () => ({ rules: [{ kind: 'read', pattern: 'secrets/**', action: 'deny' }], problems: [], config: {} }),
      },
    }) as unknown as ToolContext;

  it('a write outside fails with SANDBOX_BLOCKED naming it, and runs outside when the gate says so', async () => {
    await setup();
    const target = path.join(outside.dir, 'hosts');
    const r = await bashTool.run({ command: `echo x > ${target}`, description: 'write' }, ctx(CLOSED));
    expect(r.ok).toBe(false);
    expect(r.error?.code).toBe('SANDBOX_BLOCKED');
    expect(r.error?.message).toContain(`blocked by the sandbox: write to ${target}`);
    expect(r.error?.message).toContain('sandbox: false');
    expect(r.data).toMatchObject({ sandboxed: true, blocked: `write to ${target}` });
    const seen: unknown[] = [];
    const out = await bashTool.run({ command: `echo x > ${target}`, description: 'write', sandbox: false }, ctx(null, seen));
    expect(out.ok).toBe(true);
    expect(out.data).toMatchObject({ sandboxed: false, blocked: null });
    expect(seen[0]).toMatchObject({ outsideSandbox: true });
    expect(readFileSync(target, 'utf8')).toBe('x\n');
  });

  it('read deny rule paths are hidden from a sandboxed bash', async () => {
    await setup();
    mkdirSync(path.join(ws.dir, 'secrets'));
    writeFileSync(path.join(ws.dir, 'secrets', 'prod.env'), 'TOKEN=1\n');
    const r = await bashTool.run({ command: 'cat secrets/prod.env', description: 'read' }, ctx(CLOSED));
    expect(r.output).not.toContain('TOKEN=1');
    expect(r.error?.code).toBe('SANDBOX_BLOCKED');
    const plain = await bashTool.run({ command: 'cat secrets/prod.env', description: 'read' }, ctx(null));
    expect(plain.output).toContain('TOKEN=1');
  });

  it('run_tests: a test command writing outside fails with SANDBOX_BLOCKED, and passes outside', async () => {
    await setup();
    const target = path.join(outside.dir, 'leak');
    const r = await runTestsTool.run({ test_command: `echo x > ${target}` }, ctx(CLOSED));
    expect(r.error?.code, r.output).toBe('SANDBOX_BLOCKED');
    expect(r.error?.message).toContain(`write to ${target}`);
    expect(r.data).toMatchObject({ sandboxed: true, blocked: `write to ${target}` });
    expect(existsSync(target)).toBe(false);
    const seen: unknown[] = [];
    const out = await runTestsTool.run({ test_command: `echo x > ${target}`, sandbox: false }, ctx(null, seen));
    expect(out.data).toMatchObject({ sandboxed: false, blocked: null });
    expect(seen[0]).toMatchObject({ outsideSandbox: true });
    expect(existsSync(target)).toBe(true);
  });

  it('an ordinary failure inside is not blamed on the sandbox', async () => {
    await setup();
    const r = await bashTool.run({ command: 'ls no-such-file', description: 'ls' }, ctx(CLOSED));
    expect(r.ok).toBe(true);
    expect(r.data).toMatchObject({ sandboxed: true, blocked: null, exit_code: 2 });
  });
});
