import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { until } from '../../../../test/support/tmp';
import { editorCommand, noDisplay, openInEditor } from './openInEditor';

describe('open in your editor', () => {
  it('prefers $VISUAL, skips terminal editors, knows VS Code’s line syntax, else the OS default', () => {
    expect(editorCommand('/w/a.ts', 3, { VISUAL: 'code --wait', PATH: '' }, 'linux')).toEqual({ command: 'code', args: ['--wait', '-g', '/w/a.ts:3'] });
    expect(editorCommand('/w/a.ts', 3, { VISUAL: 'vim', EDITOR: 'zed', PATH: '' }, 'linux')).toEqual({ command: 'zed', args: ['/w/a.ts:3'] });
    expect(editorCommand('/w/a.ts', undefined, { EDITOR: 'nano', PATH: '' }, 'linux')).toEqual({ command: 'xdg-open', args: ['/w/a.ts'] });
    expect(editorCommand('/w/a.ts', undefined, { PATH: '' }, 'darwin')).toEqual({ command: 'open', args: ['/w/a.ts'] });
  });

  it('starts the editor with the file, no shell in between', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'loupe-editor-'));
    try {
      const script = path.join(dir, 'my-editor');
      const out = path.join(dir, 'args.txt');
      writeFileSync(script, `#!/bin/sh\nprintf '%s\\n' "$@" > "${out}"\n`);
      chmodSync(script, 0o755);
      const file = path.join(dir, 'a b;$(touch pwned).ts');
      await openInEditor(file, 7, { ...process.env, VISUAL: script });
      await until(() => existsSync(out) && readFileSync(out, 'utf8').includes('.ts'));
      expect(readFileSync(out, 'utf8')).toBe(`${file}\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('holds back the OS default where no display can show it; elsewhere the OS decides', async () => {
    expect(noDisplay({}, 'linux')).toMatch(/no display/);
    expect(noDisplay({ DISPLAY: ':0' }, 'linux')).toBeNull();
    expect(noDisplay({ WAYLAND_DISPLAY: 'wayland-0' }, 'freebsd')).toBeNull();
    expect(noDisplay({}, 'darwin')).toBeNull();
    expect(noDisplay({}, 'win32')).toBeNull();
    const r = await openInEditor('/w/a.ts', undefined, { PATH: '' }, 'linux');
    expect(r).toEqual({ opened: false, reason: expect.stringMatching(/no editor was found .* no display is set/) });
  });

  it('an editor that fails at once did not open, in its own words; one missing cannot start', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'loupe-editor-'));
    try {
      const script = path.join(dir, 'bad-editor');
      writeFileSync(script, '#!/bin/sh\necho "first" >&2\necho "bad-editor: no window server" >&2\nexit 3\n');
      chmodSync(script, 0o755);
      expect(await openInEditor(path.join(dir, 'a.ts'), 2, { ...process.env, VISUAL: script })).toEqual({ opened: false, reason: 'bad-editor exited with 3: bad-editor: no window server' });
      const missing = await openInEditor(path.join(dir, 'a.ts'), 2, { ...process.env, VISUAL: path.join(dir, 'nowhere') });
      expect(missing).toEqual({ opened: false, reason: expect.stringMatching(/^nowhere could not start: .*ENOENT/) });
      const ok = path.join(dir, 'ok-editor');
      writeFileSync(ok, '#!/bin/sh\nexit 0\n');
      chmodSync(ok, 0o755);
      expect(await openInEditor(path.join(dir, 'a.ts'), 2, { ...process.env, VISUAL: ok })).toEqual({ opened: true, command: { command: ok, args: [path.join(dir, 'a.ts')] } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
