const BASE_MS = 250;
const MAX_MS = 5000;

/**
 * Delay before reconnect attempt `attempt` (0-based): exponential up to a ceiling, with
 * jitter so several tabs of one host do not knock in lockstep after a restart.
 */
export function reconnectDelay(attempt: number, random: () => number = Math.random): number {
  const exp = Math.min(MAX_MS, BASE_MS * 2 ** Math.min(attempt, 10));
  return Math.round(exp * (0.8 + 0.4 * random()));
}
