import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatTarget, parseTarget, sshDestination } from './target';

/** Strings over the characters that matter: option dashes, shell words, brackets, dots. */
const word = (maxLength: number) => fc.string({ unit: fc.constantFrom('-', 'o', 'F', 'a', '1', '=', ' ', "'", '"', '$', '(', ')', ';', '.', '_', '[', ']', ':', '\\', '`', '|'), maxLength });

describe('remote targets', () => {
  it('reads ssh targets as Zed does: absolute paths, ~ for the home folder, user and port optional', () => {
    expect(parseTarget('ssh://box/srv/app')).toMatchObject({ kind: 'ssh', user: null, host: 'box', port: null, path: '/srv/app' });
    expect(parseTarget('ssh://alice@box:2222/~/src/app')).toMatchObject({ user: 'alice', host: 'box', port: 2222, path: '~/src/app' });
    expect(parseTarget('ssh://box')).toMatchObject({ path: '~' });
    expect(parseTarget('ssh://box/')).toMatchObject({ path: '~' });
    expect(parseTarget('ssh://[::1]:22/x')).toMatchObject({ host: '[::1]', port: 22, path: '/x' });
    expect(parseTarget('ssh://box/my%20app')).toMatchObject({ path: '/my app' });
    expect(parseTarget('devcontainer:///home/a/app')).toEqual({ kind: 'devcontainer', path: '/home/a/app', text: 'devcontainer:///home/a/app' });
  });

  it('round-trips through its canonical form', () => {
    for (const t of ['ssh://box/srv/app', 'ssh://alice@box:2222/~/src', 'ssh://box/~', 'devcontainer:///w/app']) {
      expect(parseTarget(formatTarget(parseTarget(t)))).toMatchObject({ ...parseTarget(t), text: expect.any(String) });
    }
  });

  it('refuses what ssh could read as an option or a shell word, and says what it takes', () => {
    for (const bad of ['ssh://-oProxyCommand=touch%20x/tmp', 'ssh://-F/x/y', 'ssh://a;b/x', 'ssh://a$(id)/x', 'ssh://-l@box/x', 'ssh://us er@box/x', 'ssh://box:0/x', 'ssh://box:99999/x', 'ssh://box:22a/x', 'ssh://box/%ZZ', 'ssh://box/a%00b', 'devcontainer://relative', 'ftp://box/x', 'box:/x']) {
      expect(() => parseTarget(bad), bad).toThrow(/ssh:\/\/\[user@\]host\[:port\]\/path/);
    }
  });

  it('never hands ssh a destination that starts with a dash or holds a space or quote, whatever is typed', () => {
    fc.assert(
      fc.property(word(40), fc.option(word(12)), (host, user) => {
        let t;
        try {
          t = parseTarget(`ssh://${user === null ? '' : `${user}@`}${host}/x`);
        } catch {
          return;
        }
        if (t.kind !== 'ssh') return;
        const dest = sshDestination(t);
        expect(dest.startsWith('-')).toBe(false);
        expect(dest).not.toMatch(/[\s'"`$;&|<>\\]/);
      }),
      { numRuns: 2000 },
    );
  });
});
