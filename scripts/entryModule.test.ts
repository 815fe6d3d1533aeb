import path from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

interface EntryModule {
  isEntryModule(moduleUrl: string, argv1: string | undefined, o?: { platform?: NodeJS.Platform; cwd?: string; realpath?: (p: string) => string }): boolean;
}
const { isEntryModule }: EntryModule = await import(new URL('./entryModule.mjs', import.meta.url).href);

// Path segments a checkout may really have: spaces, accents, CJK, emoji, and the characters a
// file URL escapes (`%`, `#`, `?`, `~`, `[`, `]`, `;`).
const SEGMENT_CHARS = ['a', 'Z', '0', ' ', '-', '_', '.', 'é', 'ü', 'ß', '日', '本', '😀', '%', '#', '?', '~', '[', ']', ';', '&', "'", '(', '+', '='];
const segment = fc
  .array(fc.constantFrom(...SEGMENT_CHARS), { minLength: 1, maxLength: 10 })
  .map((cs) => cs.join(''))
  .filter((s) => s !== '.' && s !== '..' && s.trim() === s && !s.endsWith('.'));
const segments = fc.array(segment, { minLength: 1, maxLength: 4 });
const noRealpath = (p: string) => p;

describe('isEntryModule', () => {
  it('recognises a POSIX entry script whatever its path holds', () => {
    fc.assert(
      fc.property(segments, (segs) => {
        const file = path.posix.join('/home', ...segs, 'scripts', 'postinstall.mjs');
        const url = pathToFileURL(file).href;
        const o = { platform: 'linux' as const, cwd: '/', realpath: noRealpath };
        expect(isEntryModule(url, file, o)).toBe(true);
        // npm runs `node scripts/postinstall.mjs` from the package root: argv[1] is relative there.
        expect(isEntryModule(url, 'scripts/postinstall.mjs', { ...o, cwd: path.posix.join('/home', ...segs) })).toBe(true);
        expect(isEntryModule(url, path.posix.join('/home', ...segs, 'scripts', 'start.mjs'), o)).toBe(false);
      }),
      { numRuns: 400 },
    );
  });

  it('recognises a Windows entry script: drive letters, backslashes and case do not matter', () => {
    const drive = fc.constantFrom('C', 'D', 'z');
    fc.assert(
      fc.property(drive, segments, fc.boolean(), (d, segs, lower) => {
        const file = `${d}:\\Users\\${segs.filter((s) => !/[?*"<>|:]/.test(s)).join('\\') || 'dev'}\\loupe\\scripts\\postinstall.mjs`;
        // What Node's ESM loader gives as import.meta.url on Windows.
        const url = pathToFileURL(file, { windows: true }).href;
        const argv1 = lower ? file.replace(/^[A-Za-z]:/, (m) => m.toLowerCase()) : file.replace(/^[A-Za-z]:/, (m) => m.toUpperCase());
        const o = { platform: 'win32' as const, cwd: 'C:\\', realpath: noRealpath };
        expect(isEntryModule(url, argv1, o)).toBe(true);
        expect(isEntryModule(url, argv1.replace(/\\/g, '/'), o)).toBe(true);
        expect(isEntryModule(url, argv1.replace(/postinstall\.mjs$/, 'start.mjs'), o)).toBe(false);
      }),
      { numRuns: 400 },
    );
  });

  it('the comparison it replaces failed on all of these', () => {
    const cases = [
      ['/home/ana maría/loupe/scripts/postinstall.mjs', 'linux'],
      ['/home/李/loupe/scripts/postinstall.mjs', 'linux'],
      ['/home/u/100%/loupe/scripts/postinstall.mjs', 'linux'],
      ['C:\\Users\\dev\\loupe\\scripts\\postinstall.mjs', 'win32'],
    ] as const;
    for (const [file, platform] of cases) {
      const url = pathToFileURL(file, { windows: platform === 'win32' }).href;
      expect(url === `file://${file}`).toBe(false);
      expect(isEntryModule(url, file, { platform, cwd: platform === 'win32' ? 'C:\\' : '/', realpath: noRealpath })).toBe(true);
    }
  });

  it('follows a symlinked argv[1] to the real script, and refuses what is not a file URL', () => {
    const real = (p: string) => (p === '/link/postinstall.mjs' ? '/real/postinstall.mjs' : p);
    expect(isEntryModule('file:///real/postinstall.mjs', '/link/postinstall.mjs', { platform: 'linux', cwd: '/', realpath: real })).toBe(true);
    expect(isEntryModule('data:text/javascript,1', '/x.mjs', { platform: 'linux', cwd: '/' })).toBe(false);
    expect(isEntryModule('file:///x.mjs', undefined, { platform: 'linux', cwd: '/' })).toBe(false);
  });
});
