import { describe, expect, it } from 'vitest';
import { KeyedLock } from './fileLocks';
import { ModificationIds, stampOf } from './ids';

describe('modification ids', () => {
  const at = (iso: string) => new Date(iso);

  it('are mod-YYYYMMDD-HHMMSS-NNN in UTC, counting within a second', () => {
    const ids = new ModificationIds();
    expect(ids.next(at('2026-01-31T10:15:23.456Z'))).toBe('mod-20260131-101523-001');
    expect(ids.next(at('2026-01-31T10:15:23.999Z'))).toBe('mod-20260131-101523-002');
    expect(ids.next(at('2026-01-31T10:15:24.000Z'))).toBe('mod-20260131-101524-001');
    expect(stampOf(at('2026-12-01T01:02:03Z'))).toBe('20261201-010203');
  });

  it('continue after a seeded id and never go back when the clock does', () => {
    const ids = new ModificationIds();
    ids.seed('mod-20260131-101523-007');
    expect(ids.next(at('2026-01-31T10:15:23Z'))).toBe('mod-20260131-101523-008');
    expect(ids.next(at('2026-01-31T10:15:00Z'))).toBe('mod-20260131-101523-009');
  });
});

describe('KeyedLock', () => {
  it('serialises per key, runs keys in parallel, and is re-entrant', async () => {
    const lock = new KeyedLock();
    const order: string[] = [];
    const job = (key: string, name: string, ms: number) =>
      lock.run(key, async () => {
        order.push(`${name}+`);
        await new Promise((r) => setTimeout(r, ms));
        order.push(`${name}-`);
      });
    await Promise.all([job('a', 'a1', 30), job('a', 'a2', 1), job('b', 'b1', 5)]);
    expect(order.indexOf('a1-')).toBeLessThan(order.indexOf('a2+'));
    expect(order.indexOf('b1-')).toBeLessThan(order.indexOf('a1-'));
    await expect(lock.run('k', () => lock.run('k', async () => 'inner'))).resolves.toBe('inner');
  });
});
