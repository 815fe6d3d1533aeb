import { describe, expect, test } from 'vitest';
import { detectBlocked, portsInUse, refusedLoopback } from './blocked';

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

describe('refusedLoopback: the port of a refused connection to this machine, as clients print it', () => {
  test.each([
    ['Error: connect ECONNREFUSED 127.0.0.1:5432', '127.0.0.1 5432'],
    ['Error: connect ECONNREFUSED ::1:6379', '::1 6379'],
    ["curl: (7) Failed to connect to 127.0.0.1 port 8123 after 0 ms: Couldn't connect to server", '127.0.0.1 8123'],
    ['curl: (7) Failed to connect to localhost port 8123 after 0 ms: Connection refused', 'localhost 8123'],
    ['psql: error: connection to server at "127.0.0.1", port 5432 failed: Connection refused', '127.0.0.1 5432'],
    ['psql: error: connection to server at "localhost" (::1), port 5432 failed: Connection refused', '::1 5432'],
    ["requests.exceptions.ConnectionError: HTTPConnectionPool(host='127.0.0.1', port=5433): Max retries exceeded (Caused by NewConnectionError('<x>: Failed to establish a new connection: [Errno 111] Connection refused'))", '127.0.0.1 5433'],
    ['dial tcp [::1]:5432: connect: connection refused', '::1 5432'],
    ['bash: line 1: /dev/tcp/127.0.0.1/5432: Connection refused', '127.0.0.1 5432'],
    ['Could not connect to Redis at 127.0.0.1:6379: Connection refused', '127.0.0.1 6379'],
    ['nc: connect to 127.0.0.2 port 5432 (tcp) failed: Connection refused', '127.0.0.2 5432'],
    ['java.net.ConnectException: Connection refused: localhost/127.0.0.1:5432', '127.0.0.1 5432'],
    ['Error: connect ECONNREFUSED 0.0.0.0:3000', '127.0.0.1 3000'],
  ])('%s', (out, want) => expect(refusedLoopback(out).map((r) => `${r.host} ${r.port}`)).toEqual([want]));

  test.each([
    ['another address', 'Error: connect ECONNREFUSED 10.0.0.5:5432'],
    ['an IPv6 address ending in ::1', 'dial tcp fe80::1:5432: connection refused'],
    ['no refusal on the line', 'listening on 127.0.0.1:5432'],
    ['no port', 'ConnectionRefusedError: [Errno 111] Connection refused'],
  ])('nothing for %s', (_n, out) => expect(refusedLoopback(out)).toEqual([]));

  test('ports a listen found taken', () => {
    expect(portsInUse('Error: listen EADDRINUSE: address already in use 127.0.0.1:5432')).toEqual([5432]);
    expect(portsInUse('Error: listen EADDRINUSE: address already in use :::6379')).toEqual([6379]);
    expect(portsInUse('listen tcp 127.0.0.1:8080: bind: address already in use')).toEqual([8080]);
    expect(portsInUse('Error: connect ECONNREFUSED 127.0.0.1:5432')).toEqual([]);
  });
});
