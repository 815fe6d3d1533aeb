// Paste into the terminal, in Chromium, with the clipboard permission the desktop app grants
// (none for reading): the real xterm.js and the real key handler, transpiled from its source.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../playwright.config';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const xtermDir = path.dirname(createRequire(import.meta.url).resolve('@xterm/xterm/package.json'));

describe('paste in Chromium without clipboard-read', () => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    // No permissions granted: like the desktop app's session, which never allows clipboard-read.
    page = await (await browser.newContext()).newPage();
    await page.setContent('<div id="term" style="width:640px;height:320px"></div><textarea id="src">echo pasted</textarea>');
    await page.addScriptTag({ content: readFileSync(path.join(xtermDir, 'lib', 'xterm.js'), 'utf8') });
    const handler = ts.transpileModule(readFileSync(path.join(root, 'src/renderer/terminal/clipboardKeys.ts'), 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    await page.addScriptTag({ type: 'module', content: `${handler}\nwindow.terminalKeyHandler = terminalKeyHandler;` });
    await page.waitForFunction(() => 'terminalKeyHandler' in globalThis);
    await page.evaluate(() => {
      interface XtermLike {
        open(el: unknown): void;
        onData(cb: (d: string) => void): void;
        attachCustomKeyEventHandler(h: unknown): void;
      }
      const w = globalThis as unknown as {
        Terminal: new () => XtermLike;
        terminalKeyHandler: (t: XtermLike, write: (s: string) => Promise<void>, mac: boolean) => unknown;
        document: { getElementById(id: string): unknown };
        sent: string[];
      };
      const term = new w.Terminal();
      term.open(w.document.getElementById('term'));
      w.sent = [];
      term.onData((d) => w.sent.push(d));
      term.attachCustomKeyEventHandler(w.terminalKeyHandler(term, () => Promise.resolve(), false));
    });
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('Ctrl+Shift+V pastes what the user copied', async () => {
    // The user copies text somewhere (a real copy, no permission involved).
    await page.focus('#src');
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Control+C');
    await page.focus('.xterm-helper-textarea');
    await page.keyboard.press('Control+Shift+V');
    await expect.poll(() => page.evaluate(() => (globalThis as unknown as { sent: string[] }).sent.join(''))).toBe('echo pasted');
  });
});
