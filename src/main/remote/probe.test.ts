import { describe, expect, it } from 'vitest';
import { compareVersions } from './layout';
import { checkFit, parseProbe } from './probe';

const out = (extra = '') =>
  ['os=Linux', 'arch=x86_64', 'home=/home/a', 'uid=1000', 'glibc=glibc 2.36', 'node=/usr/bin/node', 'node_version=v20.20.2', 'bwrap=/usr/bin/bwrap', 'tar=/usr/bin/tar', 'disk_kb=10485760', extra, 'probe=done', ''].join('\n');
const here = { platform: 'linux', arch: 'x64', glibc: '2.36' };

describe('the remote probe', () => {
  it('reads the facts, the installed versions, and ldd\u2019s words when getconf has none', () => {
    const f = parseProbe(out('installed={"version":"0.0.9","build":"b","node":"system","created_at":"x"}\ninstalled={broken'));
    expect(f).toMatchObject({ os: 'Linux', arch: 'x86_64', home: '/home/a', glibc: '2.36', node: { path: '/usr/bin/node', version: 'v20.20.2' }, bwrap: '/usr/bin/bwrap', diskKb: 10485760 });
    expect(f.installed.map((m) => m.version)).toEqual(['0.0.9']);
    expect(parseProbe(out().replace('glibc=glibc 2.36', 'glibc=ldd (Debian GLIBC 2.31-13) 2.31')).glibc).toBe('2.31');
    expect(() => parseProbe('fish: Unknown command')).toThrow(/POSIX shell/);
  });

  it('uses the machine\u2019s Node when it is new enough, else uploads this one', () => {
    expect(checkFit(parseProbe(out()), here, 1e6)).toEqual({ node: 'system' });
    expect(checkFit(parseProbe(out().replace('v20.20.2', 'v18.19.0')), here, 1e6)).toEqual({ node: 'bundled' });
    expect(checkFit(parseProbe(out().replace('node=/usr/bin/node', 'node=').replace('node_version=v20.20.2', '')), here, 1e6)).toEqual({ node: 'bundled' });
  });

  it('says plainly why a machine cannot run this build', () => {
    expect(() => checkFit(parseProbe(out().replace('arch=x86_64', 'arch=aarch64')), here, 1e6)).toThrow(/built for x86_64.*needs a build for aarch64/);
    expect(() => checkFit(parseProbe(out().replace('glibc=glibc 2.36', 'glibc=glibc 2.28')), here, 1e6)).toThrow(/glibc 2.28.*need glibc 2.36/);
    expect(() => checkFit(parseProbe(out().replace('glibc=glibc 2.36', 'glibc=musl libc')), here, 1e6)).toThrow(/no glibc/);
    expect(() => checkFit(parseProbe(out().replace('os=Linux', 'os=Darwin')), here, 1e6)).toThrow(/runs on Linux/);
    expect(() => checkFit(parseProbe(out().replace('disk_kb=10485760', 'disk_kb=1000')), here, 50e6)).toThrow(/MB free/);
  });

  it('orders versions by their numbers, a pre-release first', () => {
    expect(['0.10.0', '0.9.1', '0.9.1-rc.1', '1.0.0', '0.0.9'].sort(compareVersions)).toEqual(['0.0.9', '0.9.1-rc.1', '0.9.1', '0.10.0', '1.0.0']);
  });
});
