import { expect, it } from 'vitest';
import { driverOverrides, gitEnv, hardenArgs, mayRunDrivers, NEUTRAL_CONFIG } from './gitEnv';

it('neutralises every driver defined outside the global config, whatever its name', () => {
  const listing = ['local', 'filter.a=b c.clean\nrm -rf ~', 'worktree', 'diff.x.y.textconv\nevil', 'command', 'merge.m.driver\nevil', 'global', 'filter.lfs.clean\ngit-lfs clean -- %f', 'local', 'filter.noval'].join('\0') + '\0';
  const o = new Map(driverOverrides(listing));
  expect(o.get('filter.a=b c.clean')).toBe('');
  expect(o.get('filter.a=b c.process')).toBe('');
  expect(o.get('filter.a=b c.required')).toBe('false');
  expect(o.get('diff.x.y.textconv')).toBe('');
  expect(o.get('diff.x.y.command')).toBe('');
  expect(o.get('merge.m.driver')).toBe('');
  expect([...o.keys()].some((k) => k.includes('lfs'))).toBe(false);
});

it('passes config as key/value pairs and drops what git would read from the environment', () => {
  const saved = { ...process.env };
  Object.assign(process.env, { GIT_DIR: '/x', GIT_CONFIG_PARAMETERS: "'core.pager'='evil'", GIT_EXTERNAL_DIFF: 'evil', PAGER: 'evil', GIT_AUTHOR_NAME: 'Me' });
  try {
    const env = gitEnv([...NEUTRAL_CONFIG, ['filter.a=b.clean', '']], { GIT_INDEX_FILE: '/tmp/i' });
    expect(env.GIT_DIR).toBeUndefined();
    expect(env.GIT_CONFIG_PARAMETERS).toBeUndefined();
    expect(env.GIT_EXTERNAL_DIFF).toBeUndefined();
    expect(env.PAGER).toBe('cat');
    expect(env.GIT_AUTHOR_NAME).toBe('Me');
    expect(env.GIT_INDEX_FILE).toBe('/tmp/i');
    const n = Number(env.GIT_CONFIG_COUNT);
    expect(env[`GIT_CONFIG_KEY_${n - 1}`]).toBe('filter.a=b.clean');
    expect(() => gitEnv([], { GIT_DIR: '/elsewhere' })).toThrow();
  } finally {
    process.env = saved;
  }
});

it('adds the per-command guards and refuses options that would run drivers', () => {
  expect(hardenArgs(['show', 'HEAD'])).toEqual(['show', '--no-textconv', '--no-ext-diff', 'HEAD']);
  expect(hardenArgs(['--no-optional-locks', 'status', '-z'])).toEqual(['--no-optional-locks', 'status', '--ignore-submodules=all', '-z']);
  expect(hardenArgs(['commit-tree', 't'])).toEqual(['commit-tree', '--no-gpg-sign', 't']);
  expect(() => hardenArgs(['cat-file', '--textconv', 'HEAD:a'])).toThrow();
  expect(() => hardenArgs(['cat-file', '--filters', 'HEAD:a'])).toThrow();
});

it('lists drivers before every call that could reach one', () => {
  for (const args of [['add', '--', 'a'], ['--no-optional-locks', 'status'], ['diff'], ['show', 'HEAD'], ['hash-object', '-w', 'a'], ['read-tree', '-u', 'HEAD'], ['update-index', '--add', 'a'], ['checkout', 'a'], ['blame', 'a'], ['grep', 'x'], ['stash']]) {
    expect(mayRunDrivers(args), args.join(' ')).toBe(true);
  }
  for (const args of [['rev-parse', 'HEAD'], ['ls-files', '-s'], ['cat-file', 'blob', 'HEAD:./a'], ['hash-object', '-w', '--no-filters', 'a'], ['read-tree', 'HEAD'], ['write-tree'], ['commit-tree', 't'], ['update-ref', 'HEAD', 'x'], ['check-ignore', '--', 'a/']]) {
    expect(mayRunDrivers(args), args.join(' ')).toBe(false);
  }
});
