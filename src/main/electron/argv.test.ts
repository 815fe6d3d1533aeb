import { describe, expect, it } from 'vitest';
import { folderFromArgv } from './argv';

describe('folderFromArgv', () => {
  it('skips the app path in unpackaged runs', () => {
    expect(folderFromArgv(['/x/electron', '.', 'proj'], false, '/home/u')).toBe('/home/u/proj');
    expect(folderFromArgv(['/x/electron', '.'], false, '/home/u')).toBeNull();
    expect(folderFromArgv(['/x/electron'], false, '/home/u')).toBeNull();
  });

  it('takes the first argument of a packaged app', () => {
    expect(folderFromArgv(['/opt/Loupe/loupe', '/abs/proj'], true, '/home/u')).toBe('/abs/proj');
    expect(folderFromArgv(['/opt/Loupe/loupe'], true, '/home/u')).toBeNull();
  });

  it('ignores switches added by Chromium, Playwright or the user', () => {
    const argv = ['/x/electron', '--no-sandbox', '--inspect=0', '--remote-debugging-port=0', '.', '/tmp/ws'];
    expect(folderFromArgv(argv, false, '/')).toBe('/tmp/ws');
    expect(folderFromArgv(['/opt/Loupe/loupe', '--allow-file-access-from-files', '--original-process-start-time=1', '../p'], true, '/a/b')).toBe('/a/p');
  });
});
