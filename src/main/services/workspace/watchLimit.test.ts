import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/support/tmp';
import { describeWatchError, INOTIFY_FIX, watchNotice } from './watcher';

const run = promisify(execFile);

/** A fresh user namespace has its own inotify limit, so a tiny one here leaves other tests alone. */
async function canUnshare(): Promise<boolean> {
  try {
    await run('unshare', ['-U', '-r', 'sh', '-c', 'echo 20 > /proc/sys/user/max_inotify_watches']);
    return true;
  } catch {
    return false;
  }
}

describe('watching under a real, tiny inotify limit', () => {
  it('the real ENOSPC error becomes the notice with the sysctl fix', async (ctx) => {
    if (!(await canUnshare())) {
      console.warn('skipped: this kernel does not allow a user namespace with its own inotify limit');
      ctx.skip();
    }
    const { dir, cleanup } = await tempDir();
    try {
      for (let i = 0; i < 60; i++) await mkdir(path.join(dir, `d${i}`));
      const script = `require(${JSON.stringify(require.resolve('@parcel/watcher'))}).subscribe(${JSON.stringify(dir)}, () => {}, {}).then(() => { console.log('OK'); process.exit(0); }, (e) => { console.log(e.message); process.exit(0); });`;
      const { stdout } = await run('unshare', ['-U', '-r', 'sh', '-c', `echo 20 > /proc/sys/user/max_inotify_watches && exec "${process.execPath}" -e "$0"`, script]);
      expect(stdout.trim()).not.toBe('OK');
      expect(watchNotice(describeWatchError(new Error(stdout.trim())))).toContain(INOTIFY_FIX);
      // Linux's own watcher (dirWatches.ts) adds one fs.watch per folder: Node's error, the same way.
      const perFolder = `const fs = require('fs'); try { for (const d of fs.readdirSync(${JSON.stringify(dir)})) fs.watch(${JSON.stringify(dir)} + '/' + d, { persistent: false }); console.log('OK'); } catch (e) { console.log(e.message); }`;
      const node = await run('unshare', ['-U', '-r', 'sh', '-c', `echo 20 > /proc/sys/user/max_inotify_watches && exec "${process.execPath}" -e "$0"`, perFolder]);
      expect(node.stdout.trim()).toMatch(/ENOSPC/);
      expect(watchNotice(describeWatchError(new Error(node.stdout.trim())))).toContain(INOTIFY_FIX);
    } finally {
      await cleanup();
    }
  });
});
