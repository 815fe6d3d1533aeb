// The desktop app end to end, through Playwright's Electron driver. Runs where the Electron
// binary is installed and a display exists; elsewhere it says why and skips.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { _electron as electron, expect, test } from '@playwright/test';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

interface ElectronProbe {
  bin: string | null;
  reason: string | null;
}

/** The binary (never through `require('electron')`, which downloads on access) and why it cannot run, if so. */
async function probeElectron(): Promise<ElectronProbe> {
  // Plain JS modules, imported by URL so the type checker does not need declarations for them.
  const postinstall = (await import(pathToFileURL(path.join(ROOT, 'scripts/postinstall.mjs')).href)) as {
    electronBinary: () => string | null;
  };
  const start = (await import(pathToFileURL(path.join(ROOT, 'scripts/start.mjs')).href)) as {
    electronUnavailableReason: (o: { platform: NodeJS.Platform; env: NodeJS.ProcessEnv; electronBin: string | null }) => string | null;
  };
  const bin = postinstall.electronBinary();
  return { bin, reason: start.electronUnavailableReason({ platform: process.platform, env: process.env, electronBin: bin }) };
}

test.describe('desktop app (Electron)', () => {
  let workspace: string;
  let loupeHome: string;

  test.beforeEach(() => {
    workspace = mkdtempSync(path.join(tmpdir(), 'loupe-e2e-electron-'));
    loupeHome = mkdtempSync(path.join(tmpdir(), 'loupe-e2e-home-'));
    writeFileSync(path.join(workspace, 'hello.txt'), 'hello from the electron spec\n');
  });

  test.afterEach(() => {
    rmSync(workspace, { recursive: true, force: true });
    rmSync(loupeHome, { recursive: true, force: true });
  });

  test('opens the folder from the command line in a sandboxed, isolated window', async () => {
    const { bin, reason } = await probeElectron();
    if (reason || !bin) {
      const why = `Electron spec skipped: ${reason ?? 'no Electron binary'}.`;
      console.log(why);
      test.skip(true, why);
      return;
    }
    expect(existsSync(path.join(ROOT, 'out/main/index.js')), 'out/main/index.js exists (run `npm run build` first)').toBe(true);

    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'ELECTRON_RUN_AS_NODE') env[k] = v;
    env.LOUPE_HOME = loupeHome; // recent folders and settings stay out of the user's config
    env.LOUPE_KEYCHAIN = 'off'; // and any saved key out of the user's keyring

    const app = await electron.launch({ executablePath: bin, args: ['.', workspace], cwd: ROOT, env });
    try {
      const page = await app.firstWindow();

      await expect(page.getByTestId('workspace-root')).toContainText(path.basename(workspace));
      await expect(page.locator('[data-testid="file-tree-item"][data-path="hello.txt"]')).toBeVisible();

      // The window's settings, read in the main process.
      const prefs = await app.evaluate(({ BrowserWindow }) => {
        const [win] = BrowserWindow.getAllWindows();
        // Undocumented but long-standing: the preferences the webContents was created with.
        const wc = win.webContents as unknown as { getLastWebPreferences?: () => Record<string, unknown> };
        return wc.getLastWebPreferences?.() ?? null;
      });
      expect(prefs, 'webContents.getLastWebPreferences() is available').not.toBeNull();
      expect(prefs).toMatchObject({ sandbox: true, contextIsolation: true, nodeIntegration: false, webviewTag: false, webSecurity: true });

      // And as the page sees them: no Node, only the typed bridge.
      const surface = await page.evaluate(() => {
        const w = window as unknown as Record<string, unknown>;
        const loupe = w.loupe as Record<string, unknown> | undefined;
        return {
          require: typeof w.require,
          process: typeof w.process,
          loupeKeys: loupe ? Object.keys(loupe).sort() : null,
        };
      });
      expect(surface).toEqual({ require: 'undefined', process: 'undefined', loupeKeys: ['on', 'requests'] });

      // window.open never creates a window.
      await page.evaluate(() => window.open('https://evil.example/', '_blank'));
      expect(await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows().length)).toBe(1);
    } finally {
      await app.close();
    }
  });
});
