import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { until } from '../../../../test/support/tmp';
import { editorCommand, openInEditor } from './openInEditor';

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
});
