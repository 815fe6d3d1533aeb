import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/support/tmp';
import { fileLogger, logFilePath } from './fileLogger';
import type { LogRecord } from './logger';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir('loupe-log-')));
afterEach(() => cleanup());

const lines = (file: string): LogRecord[] =>
  existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as LogRecord) : [];

function crashInsideNamedFunction(): never {
  throw new TypeError('cannot read properties of undefined');
}

describe('fileLogger', () => {
  it('writes one JSON line per event: time, level, event, fields', () => {
    const file = logFilePath(path.join(dir, 'config'));
    const log = fileLogger(file);
    log.info('mcp.ready', { root: '/w', session: 's1' });
    log.warn('config.problem', { message: '.loupe/config.json:3:5: bad' });
    const [a, b] = lines(file);
    expect(a).toMatchObject({ level: 'info', event: 'mcp.ready', root: '/w', session: 's1' });
    expect(new Date(a.time).toISOString()).toBe(a.time);
    expect(b).toMatchObject({ level: 'warn', event: 'config.problem', message: '.loupe/config.json:3:5: bad' });
  });

  it('keeps the whole stack of an error, with its name, message and code', () => {
    const file = path.join(dir, 'loupe.log');
    let caught: unknown;
    try {
      crashInsideNamedFunction();
    } catch (err) {
      caught = err;
    }
    Object.assign(caught as object, { code: 'EWHATEVER' });
    fileLogger(file).error('tool.crashed', { tool: 'bash', error: caught });
    const [r] = lines(file);
    expect(r).toMatchObject({ level: 'error', event: 'tool.crashed', tool: 'bash', error: { name: 'TypeError', message: 'cannot read properties of undefined', code: 'EWHATEVER' } });
    const stack = (r.error as { stack: string }).stack;
    expect(stack).toContain('crashInsideNamedFunction');
    expect(stack).toContain('fileLogger.test.ts');
  });

  it.skipIf(process.platform === 'win32')('is owner-only (0600, folder 0700), and narrows a file another umask made wider', () => {
    const file = logFilePath(path.join(dir, 'config'));
    fileLogger(file).info('a');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    const other = path.join(dir, 'old', 'loupe.log');
    mkdirSync(path.dirname(other));
    writeFileSync(other, '');
    chmodSync(other, 0o644);
    fileLogger(other).info('b');
    expect(statSync(other).mode & 0o777).toBe(0o600);
  });

  it('rotates by size: never more than maxFiles files, each within maxBytes, newest lines kept in order', () => {
    const file = path.join(dir, 'logs', 'loupe.log');
    const log = fileLogger(file, { maxBytes: 2_000, maxFiles: 3 });
    for (let i = 0; i < 200; i++) log.info('tick', { i, pad: 'x'.repeat(40) });
    expect(readdirSync(path.dirname(file)).sort()).toEqual(['loupe.log', 'loupe.log.1', 'loupe.log.2']);
    for (const f of [file, `${file}.1`, `${file}.2`]) expect(statSync(f).size).toBeLessThanOrEqual(2_000);
    const kept = [...lines(`${file}.2`), ...lines(`${file}.1`), ...lines(file)].map((r) => r.i as number);
    expect(kept.at(-1)).toBe(199);
    expect(kept).toEqual(kept.map((_, k) => kept[0] + k)); // contiguous: rotation loses no line it keeps
    for (const f of [file, `${file}.1`, `${file}.2`]) expect(statSync(f).mode & 0o777).toBe(0o600);
  });

  it('with maxFiles 1 the one file starts afresh instead of growing past maxBytes', () => {
    const file = path.join(dir, 'one.log');
    const log = fileLogger(file, { maxBytes: 500, maxFiles: 1 });
    for (let i = 0; i < 50; i++) log.info('tick', { i });
    expect(statSync(file).size).toBeLessThanOrEqual(500);
    expect(readdirSync(dir)).toEqual(['one.log']);
    expect(lines(file).at(-1)?.i).toBe(49);
  });

  it('any field values stay one parseable line, circular ones included, and the caller never sees a throw', () => {
    const file = path.join(dir, 'loupe.log');
    const log = fileLogger(file);
    let n = 0;
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.string(), (fields, event) => {
        log.info(event, fields);
        n++;
      }),
      { numRuns: 300 },
    );
    const circular: Record<string, unknown> = { a: 1 };
    circular.self = circular;
    log.warn('odd', { circular, big: 10n });
    const all = lines(file);
    expect(all).toHaveLength(n + 1);
    expect(all.at(-1)).toMatchObject({ event: 'odd', level: 'warn', note: expect.stringMatching(/could not be serialised/) });
    // A folder where the file should be: the write fails, the caller goes on.
    mkdirSync(path.join(dir, 'blocked'));
    expect(() => fileLogger(path.join(dir, 'blocked')).error('x', { error: new Error('y') })).not.toThrow();
  });

  it('an event field never overrides the envelope', () => {
    const file = path.join(dir, 'loupe.log');
    fileLogger(file).info('real', { event: 'fake', level: 'error', time: 'then' });
    expect(lines(file)[0]).toMatchObject({ event: 'real', level: 'info' });
    expect(lines(file)[0].time).not.toBe('then');
  });
});
