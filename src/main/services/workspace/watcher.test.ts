import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/support/tmp';
import { describeWatchError, INOTIFY_FIX, watchNotice, WorkspaceWatcher } from './watcher';

describe('WorkspaceWatcher', () => {
  it('a folder it cannot watch is reported, not thrown', async () => {
    const { dir, cleanup } = await tempDir();
    const errors: string[] = [];
    const w = new WorkspaceWatcher(path.join(dir, 'missing'), () => undefined, (m) => errors.push(m));
    await expect(w.start()).resolves.toBeUndefined();
    expect(errors).toHaveLength(1);
    await w.stop();
    await cleanup();
  });

  it('cuts a path thousands of levels deep down to one readable line', () => {
    const long = `inotify_add_watch on '/tmp/x/${'d/'.repeat(10_000)}' failed: File name too long`;
    const text = describeWatchError(new Error(long));
    expect(text.length).toBeLessThanOrEqual(240);
    expect(text).toMatch(/^inotify_add_watch on '\/tmp\/x\/d\/d/);
    expect(text).toMatch(/….*File name too long$/);
    expect(describeWatchError('short\n  one')).toBe('short one');
  });
});

describe('watchNotice', () => {
  it('names the sysctl fix when inotify ran out of watches', () => {
    const text = watchNotice('inotify_add_watch on /big/pkg failed: No space left on device');
    expect(text).toContain(INOTIFY_FIX);
  });

  it('other failures name no sysctl; both say the open folders are rechecked', () => {
    const text = watchNotice('Permission denied');
    expect(text).not.toContain('sysctl');
    expect(text).toContain('folders you open are rechecked');
    expect(watchNotice('No space left on device')).toContain('folders you open are rechecked');
  });
});
