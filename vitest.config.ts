import { defineConfig } from 'vitest/config';
import HeavyFirst from './test/support/heavyFirst';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'scripts/**/*.test.ts'],
    environment: 'node',
    // Bounds for a test that is stuck, not budgets: beside a busy second process one git or rg
    // spawn took 0.1-0.5 s here, and a test of a few dozen of them passed 20 s.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Real processes and PTYs: two cores, so keep the pool small and predictable.
    pool: 'forks',
    maxWorkers: 2,
    // Long files first, so neither worker runs alone at the end (test/support/heavyFirst.ts).
    sequence: { sequencer: HeavyFirst },
    // Language servers start only in the tests that ask for them (each costs seconds of CPU).
    env: { LOUPE_LSP: 'off' },
  },
});
