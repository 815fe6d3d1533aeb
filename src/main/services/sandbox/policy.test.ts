import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { git, tempDir } from '../../../../test/support/tmp';
import { bwrapArgs } from './bwrapPolicy';
import { expandDenyGlobs } from './denyPaths';
import { SandboxProbe, probeSandbox } from './probe';
import { sandboxExecProfile } from './sbpl';

let t: { dir: string; cleanup: () => Promise<void> };
afterEach(() => t?.cleanup());
const CLOSED = { network: false, networkRule: null };

/** The --ro-bind targets of an argv. */
const roBinds = (a: string[]) => a.flatMap((x, i) => (x === '--ro-bind' ? [a[i + 2]!] : []));

describe('bwrapArgs', () => {
  it('makes missing .git/hooks, .git/info and .loupe first, so a command cannot create them', async () => {
    t = await tempDir();
    git(t.dir, 'init', '-q');
    for (const d of ['hooks', 'info']) await import('node:fs/promises').then((f) => f.rm(path.join(t.dir, '.git', d), { recursive: true, force: true }));
    const a = bwrapArgs({ root: t.dir, grant: CLOSED, home: t.dir }, '/tmp/x', t.dir);
    for (const p of ['.git/hooks', '.git/info', '.git/config', '.loupe']) expect(roBinds(a)).toContain(path.join(t.dir, p));
    expect(existsSync(path.join(t.dir, '.loupe'))).toBe(true);
    expect(a).toContain('--unshare-net');
    expect(a.slice(-3)).toEqual(['--chdir', t.dir, '--']);
  });

  it('a worktree: its git folders outside stay writable, their config and hooks do not, the .git file is pinned', async () => {
    t = await tempDir();
    const main = path.join(t.dir, 'main');
    mkdirSync(main);
    git(main, 'init', '-q');
    git(main, 'commit', '-q', '--allow-empty', '-m', 'x');
    git(main, 'worktree', 'add', '-q', path.join(t.dir, 'wt'));
    const wt = path.join(t.dir, 'wt');
    const a = bwrapArgs({ root: wt, grant: { network: true, networkRule: 'r' } }, '/tmp/x', wt, '/tmp/loupe-net-x');
    // A network grant no longer drops the namespace: the way out is the bridge's folder, read-only.
    expect(a).toContain('--unshare-net');
    expect(a.join(' ')).toContain('--ro-bind /tmp/loupe-net-x /tmp/loupe-net-x');
    const binds = a.flatMap((x, i) => (x === '--bind' ? [a[i + 2]!] : []));
    expect(binds).toContain(path.join(main, '.git'));
    expect(roBinds(a)).toEqual(expect.arrayContaining([path.join(wt, '.git'), path.join(main, '.git', 'config'), path.join(main, '.git', 'hooks')]));
  });

  it('hides credential folders with an empty tmpfs and files with /dev/null', async () => {
    t = await tempDir();
    mkdirSync(path.join(t.dir, '.ssh'));
    writeFileSync(path.join(t.dir, '.netrc'), 'x');
    const a = bwrapArgs({ root: t.dir, grant: CLOSED, home: t.dir }, '/tmp/x', t.dir);
    expect(a.join(' ')).toContain(`--tmpfs ${path.join(t.dir, '.ssh')}`);
    expect(a.join(' ')).toContain(`--ro-bind /dev/null ${path.join(t.dir, '.netrc')}`);
    // Missing ones are skipped: bwrap would fail to mount over nothing.
    expect(a.join(' ')).not.toContain('.aws');
  });
});

describe('expandDenyGlobs', () => {
  it('finds the concrete paths of read deny patterns, bounded', async () => {
    t = await tempDir();
    for (const f of ['.env', 'app/.env', 'secrets/a', 'src/x.ts']) {
      mkdirSync(path.dirname(path.join(t.dir, f)), { recursive: true });
      writeFileSync(path.join(t.dir, f), 'x');
    }
    expect(expandDenyGlobs(t.dir, ['.env', 'secrets/**']).sort()).toEqual([path.join(t.dir, '.env'), path.join(t.dir, 'app/.env'), path.join(t.dir, 'secrets')].sort());
    expect(expandDenyGlobs(t.dir, ['.env'], 2).length).toBeLessThanOrEqual(1);
  });
});

describe('sandboxExecProfile', () => {
  it('writes only the workspace and temp, hides credentials, closes the network without a grant', () => {
    const p = sandboxExecProfile({ root: '/w "q"', grant: CLOSED, home: '/h' }, '/t');
    expect(p.startsWith('(version 1)\n')).toBe(true);
    expect(p).toContain('(deny file-write*)');
    expect(p).toContain('(subpath "/w \\"q\\"")');
    expect(p).toContain('(subpath "/w \\"q\\"/.loupe")');
    expect(p).toContain('(deny file-read* (subpath "/h/.ssh")');
    expect(p).toContain('(deny network*)');
    expect(p).toContain('(allow network-bind (local ip "localhost:*"))');
    expect(p).not.toMatch(/allow network-outbound \(remote ip/);
    // With a grant: out only to the proxy's port.
    const granted = sandboxExecProfile({ root: '/w', grant: { network: true, networkRule: 'r' }, home: '/h' }, '/t', 41234);
    expect(granted).toContain('(deny network*)');
    expect(granted.match(/allow network-outbound \(remote ip "[^"]+"\)/g)).toEqual(['allow network-outbound (remote ip "localhost:41234")']);
    // And to the ports of this machine its rules name (no namespace there: the profile is the forward).
    const ports = sandboxExecProfile({ root: '/w', grant: { network: true, networkRule: 'r' }, home: '/h' }, '/t', 41234, [5432, 6379]);
    expect(ports.match(/allow network-outbound \(remote ip "[^"]+"\)/g)).toEqual(['localhost:41234', 'localhost:5432', 'localhost:6379'].map((a) => `allow network-outbound (remote ip "${a}")`));
    // Balanced parentheses outside string literals: the profile parses as s-expressions.
    for (const line of p.trim().split('\n')) {
      let depth = 0;
      for (const ch of line.replace(/"(?:\\.|[^"\\])*"/g, '""')) {
        depth += ch === '(' ? 1 : ch === ')' ? -1 : 0;
        expect(depth).toBeGreaterThanOrEqual(0);
      }
      expect(depth, line).toBe(0);
    }
  });
});

describe('probe', () => {
  it('says why and how to install where there is no sandbox', async () => {
    expect(await probeSandbox('win32')).toMatchObject({ available: false, kind: null, reason: expect.stringContaining('win32') });
  });
  it('names the package when bwrap is not on PATH', async () => {
    const saved = process.env.PATH;
    process.env.PATH = '';
    try {
      expect(await probeSandbox('linux')).toMatchObject({ available: false, install: expect.stringContaining('sudo apt install bubblewrap') });
    } finally {
      process.env.PATH = saved;
    }
  });
  it('is asked once per instance', async () => {
    const p = new SandboxProbe();
    expect(p.status()).toBe(p.status());
    const s = await p.status();
    expect(s.available ? s.kind : s.reason).toBeTruthy();
  });
});
