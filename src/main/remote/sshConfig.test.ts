import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/support/tmp';
import { configFileOf, sshConfigHosts } from './sshConfig';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir('loupe-sshconfig-')));
afterEach(() => cleanup());

describe('hosts of the ssh config', () => {
  it('lists each alias that names one host, with the first HostName, User and Port ssh would take, and follows Include', async () => {
    await mkdir(path.join(dir, '.ssh', 'conf.d'), { recursive: true });
    await writeFile(
      path.join(dir, '.ssh', 'config'),
      ['# mine', 'Host build-box gpu', '  HostName 10.0.0.5', '  User alice', '  Port 2222', '  HostName ignored', 'Host *.corp !bastion', '  User bob', 'Host=tiny', '  HostName="t.example"', 'Include conf.d/*.conf', 'Match host x', '  User nobody', ''].join('\n'),
    );
    await writeFile(path.join(dir, '.ssh', 'conf.d', 'a.conf'), 'Host from-include\n  User carol\n');
    expect(sshConfigHosts(undefined, dir)).toEqual([
      { alias: 'build-box', hostName: '10.0.0.5', user: 'alice', port: '2222' },
      { alias: 'gpu', hostName: '10.0.0.5', user: 'alice', port: '2222' },
      { alias: 'tiny', hostName: 't.example' },
      { alias: 'from-include', user: 'carol' },
    ]);
  });

  it('reads nothing when there is no config, and survives an Include loop', async () => {
    expect(sshConfigHosts(undefined, dir)).toEqual([]);
    await mkdir(path.join(dir, '.ssh'));
    await writeFile(path.join(dir, '.ssh', 'config'), 'Include config\nHost a\n');
    expect(sshConfigHosts(undefined, dir)).toEqual([{ alias: 'a' }]);
  });

  it('takes the file ssh is told to read with -F', () => {
    expect(configFileOf(['-F', '/etc/x'], dir)).toBe('/etc/x');
    expect(configFileOf(['-F~/c'], dir)).toBe(path.join(dir, 'c'));
    expect(configFileOf(['-i', 'k'], dir)).toBeUndefined();
  });
});
