import { describe, expect, it, vi } from 'vitest';
import { AckBatcher } from './ackBatcher';
import { clipboardIntent, terminalKeyHandler } from './clipboardKeys';
import { TerminalIo, type TerminalChunk } from './terminalIo';

describe('AckBatcher', () => {
  it('acknowledges in batches of at least 5,000 characters', () => {
    const sent: number[] = [];
    const acks = new AckBatcher((n) => sent.push(n));
    for (let i = 0; i < 12; i++) acks.written(1000);
    expect(sent).toEqual([5000, 5000]);
    acks.flush();
    expect(sent).toEqual([5000, 5000, 2000]);
  });

  it('sends one ack for a single large chunk', () => {
    const sent: number[] = [];
    new AckBatcher((n) => sent.push(n)).written(65_536);
    expect(sent).toEqual([65_536]);
  });

  it('never leaves the host paused: what stays unacked is below its resume mark', () => {
    let acked = 0;
    const acks = new AckBatcher((n) => (acked += n));
    let written = 0;
    for (let i = 0; i < 1000; i++) {
      const n = 1 + ((i * 7919) % 4096);
      written += n;
      acks.written(n);
    }
    expect(written - acked).toBeLessThan(5000);
  });
});

describe('TerminalIo', () => {
  it('holds output until a view attaches, then streams', () => {
    const io = new TerminalIo();
    io.push('t1', { data: '$ ', ack: true });
    const got: TerminalChunk[] = [];
    const detach = io.attach('t1', (c) => got.push(c));
    io.push('t1', { data: 'ls\r\n', ack: true });
    expect(got.map((c) => c.data)).toEqual(['$ ', 'ls\r\n']);
    detach();
    io.push('t1', { data: 'later', ack: true });
    expect(got).toHaveLength(2);
  });

  it('bounds the backlog of a terminal nobody shows', () => {
    const io = new TerminalIo();
    for (let i = 0; i < 300; i++) io.push('ghost', { data: 'x'.repeat(10_000), ack: true });
    let chars = 0;
    io.attach('ghost', (c) => (chars += c.data.length));
    expect(chars).toBeLessThanOrEqual(1_000_000);
    expect(chars).toBeGreaterThan(900_000);
  });
});

const key = (k: string, mods: Partial<{ ctrlKey: boolean; shiftKey: boolean; metaKey: boolean; altKey: boolean }> = {}) => ({
  type: 'keydown',
  key: k,
  ctrlKey: false,
  shiftKey: false,
  metaKey: false,
  altKey: false,
  ...mods,
});

describe('clipboardIntent', () => {
  it('uses Ctrl+Shift+C/V off macOS and leaves Ctrl+C to the shell', () => {
    expect(clipboardIntent(key('C', { ctrlKey: true, shiftKey: true }), false)).toBe('copy');
    expect(clipboardIntent(key('V', { ctrlKey: true, shiftKey: true }), false)).toBe('paste');
    expect(clipboardIntent(key('c', { ctrlKey: true }), false)).toBeNull();
  });

  it('uses Cmd+C/V on macOS', () => {
    expect(clipboardIntent(key('c', { metaKey: true }), true)).toBe('copy');
    expect(clipboardIntent(key('v', { metaKey: true }), true)).toBe('paste');
    expect(clipboardIntent(key('c', { ctrlKey: true }), true)).toBeNull();
  });
});

describe('AckBatcher idle flush', () => {
  it('acknowledges a remainder below the batch size after a quiet moment', async () => {
    const sent: number[] = [];
    const acks = new AckBatcher((n) => sent.push(n), 5000, 20);
    acks.written(1200);
    expect(sent).toEqual([]);
    await new Promise((r) => setTimeout(r, 60));
    expect(sent).toEqual([1200]);
  });
});

const handlerKey = (k: string, mods: Parameters<typeof key>[1] = {}) => ({ ...key(k, mods), preventDefault: vi.fn() });

describe('terminalKeyHandler', () => {
  const term = { hasSelection: () => true, getSelection: () => 'ls -la' };

  it('leaves paste to the browser: no default prevented, no clipboard read, nothing sent to the shell', () => {
    const writeText = vi.fn(async () => undefined);
    for (const [e, mac] of [
      [handlerKey('V', { ctrlKey: true, shiftKey: true }), false],
      [handlerKey('v', { metaKey: true }), true],
    ] as const) {
      expect(terminalKeyHandler(term, writeText, mac)(e)).toBe(false);
      expect(e.preventDefault).not.toHaveBeenCalled();
    }
    expect(writeText).not.toHaveBeenCalled();
  });

  it('copies the selection with a sanitized write, and passes every other key to xterm', () => {
    const writeText = vi.fn(async () => undefined);
    const copy = handlerKey('C', { ctrlKey: true, shiftKey: true });
    expect(terminalKeyHandler(term, writeText, false)(copy)).toBe(false);
    expect(copy.preventDefault).toHaveBeenCalled();
    expect(writeText).toHaveBeenCalledWith('ls -la');
    const sigint = handlerKey('c', { ctrlKey: true });
    expect(terminalKeyHandler(term, writeText, false)(sigint)).toBe(true);
    expect(sigint.preventDefault).not.toHaveBeenCalled();
  });
});
