import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'scripts/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Real processes and PTYs: two cores, so keep the pool small and predictable.
    pool: 'forks',
    maxWorkers: 2,
    // Language servers start only in the tests that ask for them (each costs seconds of CPU).
    env: { LOUPE_LSP: 'off' },
  },
});
