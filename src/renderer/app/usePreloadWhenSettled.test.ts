import { expect, it } from 'vitest';
import { preloadPlan } from './usePreloadWhenSettled';

it('preloads when the index is complete, falls back only for a host that never reports, and waits while it builds', () => {
  expect(preloadPlan({ done: true })).toBe('now');
  expect(preloadPlan(null)).toBe('fallback');
  // A long build (a million files: 20 s) must not see the fallback fire in its middle.
  expect(preloadPlan({ done: false })).toBe('wait');
});
