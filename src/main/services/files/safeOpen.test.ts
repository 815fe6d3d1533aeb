import { execFileSync } from 'node:child_process';
import { constants as C, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { holdChild, holdDir, lstatInside, openInside, readInside, useDescriptorWalk } from './safeOpen';
import { ensureDirInside, readdirInside, unlinkInside, writeAtomicInside } from './safeWrite';

const SECRET = 'outside-secret-5b1f';
const sandboxes: string[] = [];
afterAll(() => {
  for (const s of sandboxes) rmSync(s, { recursive: true, force: true });
});

function scene() {
  const sandbox = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'loupe-safeopen-')));
  sandboxes.push(sandbox);
  const ws = path.join(sandbox, 'ws');
  const home = path.join(sandbox, 'home');
  mkdirSync(path.join(home, 'hd'), { recursive: true });
  mkdirSync(path.join(ws, 'other'), { recursive: true });
  writeFileSync(path.join(home, 't'), SECRET);
  writeFileSync(path.join(home, 'hd', 'f'), SECRET);
  writeFileSync(path.join(ws, 'other', 'f'), 'inside other');
  return { sandbox, ws, home };
}

const listing = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .sort()
    .map((n) => `${n}:${lstatSync(path.join(dir, n)).isFile() ? readFileSync(path.join(dir, n), 'utf8') : ''}`);

type Trap = { kind: 'none' } | { kind: 'link-out' | 'link-in' | 'not-a-folder'; at: number } | { kind: 'final-link-out' | 'final-link-in' | 'final-fifo' };
type Op = 'read' | 'write' | 'append' | 'unlink' | 'lstat' | 'readdir' | 'mkdirs';

const instance = fc.record({
  dirs: fc.array(fc.constantFrom('a', 'b', 'c'), { minLength: 1, maxLength: 4 }),
  existing: fc.boolean(),
  trap: fc.oneof(
    fc.constant<Trap>({ kind: 'none' }),
    fc.record({ kind: fc.constantFrom('link-out' as const, 'link-in' as const, 'not-a-folder' as const), at: fc.nat(3) }),
    fc.record({ kind: fc.constantFrom('final-link-out' as const, 'final-link-in' as const, 'final-fifo' as const) }),
  ),
  op: fc.constantFrom<Op>('read', 'write', 'append', 'unlink', 'lstat', 'readdir', 'mkdirs'),
});

async function runOp(op: Op, ws: string, abs: string): Promise<unknown> {
  switch (op) {
    case 'read':
      return (await readInside(ws, abs))?.buf.toString('utf8') ?? null;
    case 'write':
      return writeAtomicInside(ws, abs, 'written', { mkdirs: true });
    case 'append': {
      const o = await openInside(ws, abs, C.O_RDWR | C.O_APPEND | C.O_CREAT, { create: true });
      if (!o) return null;
      await o.fh.write('appended');
      const text = (await o.fh.readFile()).toString('utf8');
      await o.fh.close();
      return text;
    }
    case 'unlink':
      return unlinkInside(ws, abs);
    case 'lstat':
      return lstatInside(ws, abs)?.size ?? null;
    case 'readdir':
      return readdirInside(ws, path.dirname(abs));
    case 'mkdirs':
      return ensureDirInside(ws, path.join(path.dirname(abs), 'new'));
  }
}

for (const descriptors of [true, false]) {
  describe(`safeOpen (${descriptors ? 'descriptor walk' : 'portable lstat walk'})`, () => {
    it('never reads or writes outside through a link or a FIFO, whatever the path and the operation', async () => {
      const was = useDescriptorWalk(descriptors);
      try {
        await fc.assert(
          fc.asyncProperty(instance, async ({ dirs, existing, trap, op }) => {
            const { ws, home } = scene();
            const parts = [...dirs, 'f'];
            const abs = path.join(ws, ...parts);
            mkdirSync(path.dirname(abs), { recursive: true });
            if (existing) writeFileSync(abs, 'old');
            let blocked = false;
            if (trap.kind === 'link-out' || trap.kind === 'link-in' || trap.kind === 'not-a-folder') {
              const at = Math.min(trap.at, dirs.length - 1);
              const p = path.join(ws, ...dirs.slice(0, at + 1));
              rmSync(p, { recursive: true });
              if (trap.kind === 'not-a-folder') writeFileSync(p, 'a file');
              else symlinkSync(trap.kind === 'link-out' ? path.join(home, 'hd') : path.join(ws, 'other'), p);
              blocked = true;
            } else if (trap.kind !== 'none') {
              rmSync(abs, { force: true });
              if (trap.kind === 'final-fifo') execFileSync('mkfifo', [abs]);
              else symlinkSync(trap.kind === 'final-link-out' ? path.join(home, 't') : path.join(ws, 'other', 'f'), abs);
            }
            const before = listing(home);
            const outcome = await Promise.race([
              runOp(op, ws, abs).then(
                (v) => ({ ok: true as const, v }),
                (e: { code?: string }) => ({ ok: false as const, code: e.code }),
              ),
              new Promise<{ ok: false; code: 'HUNG' }>((r) => setTimeout(() => r({ ok: false, code: 'HUNG' }), 2000)),
            ]);
            expect(listing(home)).toEqual(before);
            expect(JSON.stringify(outcome)).not.toContain(SECRET);
            expect(outcome).not.toMatchObject({ code: 'HUNG' });
            if (blocked) {
              // A link in a folder position is refused by name; a file there is not a folder.
              if (trap.kind === 'not-a-folder') expect(outcome).toMatchObject(op === 'read' || op === 'lstat' || op === 'readdir' || op === 'unlink' ? { ok: true } : { ok: false });
              else expect(outcome).toMatchObject({ ok: false, code: 'UNSAFE_PATH' });
            }
            if ((trap.kind === 'final-link-out' || trap.kind === 'final-link-in') && (op === 'read' || op === 'append')) expect(outcome).toMatchObject({ ok: false, code: 'UNSAFE_PATH' });
            if (trap.kind === 'final-fifo' && (op === 'read' || op === 'append')) expect(outcome).toMatchObject({ ok: false, code: 'INVALID_PATH' });
            if (trap.kind === 'final-link-out' && op === 'write') expect(readFileSync(abs, 'utf8')).toBe('written');
          }),
          { numRuns: 100 },
        );
      } finally {
        useDescriptorWalk(was);
      }
    });

    it('creates missing folders, and refuses a path that leaves the root', async () => {
      const was = useDescriptorWalk(descriptors);
      try {
        const { ws, home } = scene();
        await writeAtomicInside(ws, path.join(ws, 'x', 'y', 'z.txt'), 'hi', { mkdirs: true });
        expect(readFileSync(path.join(ws, 'x', 'y', 'z.txt'), 'utf8')).toBe('hi');
        expect(() => holdDir(ws, home)).toThrow(expect.objectContaining({ code: 'PATH_OUTSIDE_WORKSPACE' }));
        expect(holdDir(ws, path.join(ws, 'missing'))).toBeNull();
        expect(await readInside(ws, path.join(ws, 'missing', 'f'))).toBeNull();
      } finally {
        useDescriptorWalk(was);
      }
    });

    it('holds a child folder through its parent, never a link, a file or a FIFO', () => {
      const was = useDescriptorWalk(descriptors);
      try {
        const { ws, home } = scene();
        mkdirSync(path.join(ws, 'a', 'b'), { recursive: true });
        writeFileSync(path.join(ws, 'a', 'b', 'f'), 'inside');
        writeFileSync(path.join(ws, 'a', 'file'), 'x');
        symlinkSync(path.join(home, 'hd'), path.join(ws, 'a', 'out'));
        symlinkSync(path.join(ws, 'other'), path.join(ws, 'a', 'in'));
        execFileSync('mkfifo', [path.join(ws, 'a', 'fifo')]);
        const a = holdDir(ws, path.join(ws, 'a'))!;
        try {
          const b = holdChild(a, 'b')!;
          expect(b).toMatchObject({ abs: path.join(ws, 'a', 'b'), rel: 'a/b' });
          expect(readFileSync(b.at('f'), 'utf8')).toBe('inside');
          b.close();
          for (const name of ['out', 'in', 'file', 'fifo', 'missing']) expect(holdChild(a, name), name).toBeNull();
          expect(() => holdChild(a, '..')).toThrow();
          expect(() => holdChild(a, 'b/f')).toThrow();
        } finally {
          a.close();
        }
      } finally {
        useDescriptorWalk(was);
      }
    });
  });
}
