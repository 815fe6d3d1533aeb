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
  // Bounds for a test that is stuck, not budgets: beside a busy second process an agent request
  // of a few tool calls took more than 10 s here, and a test of several more than 60.
  timeout: 120_000,
  expect: { timeout: 30_000 },
  fullyParallel: false,
  // One file at a time: two workers took 594 s where one took 596 (Chromium, the server and the
  // test share two cores, and a page's first load is CPU-bound), and only doubled the load.
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
