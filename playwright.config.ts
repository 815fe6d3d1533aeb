import { defineConfig } from '@playwright/test';

// Debian's Chromium, never a downloaded browser. Flags keep it off the closed network.
export const CHROMIUM_PATH = process.env.LOUPE_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export default defineConfig({
  testDir: 'e2e',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: process.env.LOUPE_PW_JSON ? [['list'], ['json', { outputFile: process.env.LOUPE_PW_JSON }]] : 'list',
  use: {
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1400, height: 860 },
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
    trace: 'off',
    screenshot: 'only-on-failure',
  },
});
