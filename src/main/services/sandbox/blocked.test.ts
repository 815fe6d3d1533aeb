import { describe, expect, test } from 'vitest';
import { detectBlocked } from './blocked';

const off = { network: false };
describe('detectBlocked', () => {
  test.each([
    ['/bin/bash: line 1: /etc/hosts: Read-only file system', 'write to /etc/hosts'],
    ["touch: cannot touch '/home/u/x': Read-only file system", 'write to /home/u/x'],
    ["PermissionError: [Errno 30] Read-only file system: '/usr/lib/x'", 'write to /usr/lib/x'],
    ["Error: EROFS: read-only file system, open '/etc/passwd'", 'write to /etc/passwd'],
    ['sh: .git/hooks/pre-commit: Read-only file system', 'write to .git/hooks/pre-commit'],
    ["curl: (7) Failed to connect to 127.0.0.1 port 8123 after 0 ms: Couldn't connect to server", 'network access to 127.0.0.1:8123'],
    ['Error: connect ECONNREFUSED 127.0.0.1:4000', 'network access to 127.0.0.1:4000'],
    ['curl: (6) Could not resolve host: example.com', 'network access to example.com'],
    ['npm ERR! request to https://registry.npmjs.org/x failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org', 'network access to registry.npmjs.org'],
    ['connect: Network is unreachable', 'network access'],
  ])('%s', (out, want) => expect(detectBlocked(out, off)).toBe(want));

  test('network failures are not the sandbox when the network was granted', () => {
    expect(detectBlocked('Error: connect ECONNREFUSED 127.0.0.1:4000', { network: true })).toBeNull();
  });
  test('a hidden path that is missing names the read', () => {
    expect(detectBlocked('cat: /h/.ssh/id_rsa: No such file or directory', { network: false, hidden: ['/h/.ssh'] })).toBe('read of /h/.ssh');
  });
  test('bwrap failing to set up is named, not taken for the command', () => {
    expect(detectBlocked("bwrap: Can't mount tmpfs on /h/.ssh: No such file or directory\n", off)).toBe("the sandbox could not start (Can't mount tmpfs on /h/.ssh: No such file or directory)");
  });
  test('an ordinary failure is not blamed on the sandbox', () => {
    expect(detectBlocked('error TS2322: Type string is not assignable', off)).toBeNull();
  });
});
