// Hooks for tests that attack `loupe serve` in this process: a fresh server and one healthy
// client per test, and every uncaught exception recorded (each would end a real process).
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import type WebSocket from 'ws';
import { healthyClient, request, serveFixture, type ServeFixture } from './serveFixture';

export interface UnderAttack {
  fx(): ServeFixture;
  /** No uncaught exception so far, still listening, and the healthy client is answered. */
  expectHealthy(): Promise<void>;
  /** Runs `items` `size` at a time, checking health after each batch. */
  inBatches<T>(items: T[], size: number, run: (item: T) => Promise<void>): Promise<void>;
}

export function serverUnderAttack(): UnderAttack {
  let fx: ServeFixture;
  let healthy: WebSocket;
  const uncaught: unknown[] = [];
  const onUncaught = (err: unknown) => uncaught.push(err);
  beforeAll(() => void process.on('uncaughtException', onUncaught));
  afterAll(() => void process.off('uncaughtException', onUncaught));
  beforeEach(async () => {
    uncaught.length = 0;
    fx = await serveFixture();
    healthy = await healthyClient(fx.srv);
  });
  afterEach(async () => {
    healthy.terminate();
    await fx.close();
  });
  const expectHealthy = async () => {
    expect(uncaught).toEqual([]);
    expect(fx.srv.server.listening).toBe(true);
    expect(await request(healthy, 'tree.list', { dir: '' })).toMatchObject({ t: 'res', ok: true });
  };
  return {
    fx: () => fx,
    expectHealthy,
    async inBatches(items, size, run) {
      for (let i = 0; i < items.length; i += size) {
        await Promise.all(items.slice(i, i + size).map(run));
        await expectHealthy();
      }
    },
  };
}
