// A FIFO where a file used to be must never hang a read: each path that reads a workspace
// file (the tools, the host's file.read / diff / rollback channels, the modification log, its
// blobs, sessions, project config, package.json and instruction-file detection, git's exclude file)
// answers within a second, and FIFOs being read at once do not stall other file I/O (a read
// blocked in open(2) holds one of libuv's four threadpool threads for good).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, constants as C, existsSync, mkdirSync, openSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Host } from '../../src/main/host/host';
import { findInstructions } from '../../src/main/services/instructions/instructionFiles';
import { ProjectConfig } from '../../src/main/services/permissions/projectConfig';
import { readTrustState } from '../../src/main/services/permissions/trust';
import { SessionStore } from '../../src/main/services/sessions/sessionStore';
import { resolveTestCommand } from '../../src/main/services/tests/detect';
import { harness, type Harness } from '../support/toolHarness';

const LIMIT_MS = 1000;
let h: Harness;
let host: Host | null = null;
const fifos: string[] = [];

/** Makes `rel` a FIFO (replacing whatever was there). */
function fifo(rel: string): string {
  const abs = path.join(h.root, rel);
  rmSync(abs, { force: true, recursive: true });
  mkdirSync(path.dirname(abs), { recursive: true });
  execFileSync('mkfifo', [abs]);
  fifos.push(abs);
  return abs;
}

/** Unblocks any reader stuck opening a FIFO (the code before the fix), so the worker can finish. */
function release(): void {
  for (const f of fifos) {
    if (!existsSync(f)) continue;
    try {
      closeSync(openSync(f, C.O_RDWR | C.O_NONBLOCK));
    } catch {
      /* not a FIFO any more */
    }
  }
}

afterEach(async () => {
  for (let i = 0; i < 20; i++) {
    release();
    await new Promise((r) => setTimeout(r, 10));
  }
  fifos.length = 0;
  await host?.dispose();
  host = null;
  await h?.cleanup();
});

type Outcome = { settled: false } | { settled: true; ok: boolean; code?: string };

/** Whether `p` settles within the limit, and how (a tool result with ok:false counts as an error). */
async function within(p: Promise<unknown>, ms = LIMIT_MS): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Outcome>((r) => (timer = setTimeout(() => r({ settled: false }), ms)));
  const settled = p.then(
    (v) => {
      const r = v as { ok?: boolean; error?: { code?: string } } | null;
      return { settled: true as const, ok: r?.ok !== false, code: r?.error?.code };
    },
    (e: { code?: string }) => ({ settled: true as const, ok: false, code: e?.code }),
  );
  try {
    return await Promise.race([settled, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

async function openHost(): Promise<Host> {
  host = new Host({ transport: 'websocket', configDir: path.join(h.sandbox, 'config') });
  await host.open(h.root);
  return host;
}

/** A modification of a.txt (original -> changed), then a.txt replaced by a FIFO. */
async function modifiedThenFifo(): Promise<string> {
  await h.write('a.txt', 'original\n');
  await h.call('read_file', { path: 'a.txt' });
  const w = await h.call('write_file', { path: 'a.txt', content: 'changed\n' });
  fifo('a.txt');
  return w.data!.modification_id as string;
}

interface ReadPath {
  name: string;
  /** Sets up the FIFO and starts the read to time (boxed, so awaiting setup does not await the read). */
  run(): Promise<{ read: Promise<unknown> }>;
  /** The read should succeed (the FIFO is skipped) rather than fail. */
  okAllowed?: boolean;
}

const PATHS: ReadPath[] = [
  { name: 'read_file', run: async () => (fifo('p.txt'), { read: h.call('read_file', { path: 'p.txt' }) }) },
  { name: 'edit_file', run: async () => (fifo('p.txt'), { read: h.call('edit_file', { path: 'p.txt', old_str: 'a', new_str: 'b' }) }) },
  { name: 'write_file over a FIFO', run: async () => (fifo('p.txt'), { read: h.call('write_file', { path: 'p.txt', content: 'x\n' }) }) },
  { name: 'code_modify', run: async () => (fifo('p.txt'), { read: h.call('code_modify', { file_path: 'p.txt', line_range: [1, 1], new_content: 'x' }) }) },
  { name: 'code_rollback (file now a FIFO)', run: async () => ({ read: h.call('code_rollback', { modification_id: await modifiedThenFifo() }) }) },
  {
    name: 'code_rollback (before-blob a FIFO)',
    run: async () => {
      await h.write('a.txt', 'original\n');
      await h.call('read_file', { path: 'a.txt' });
      const w = await h.call('write_file', { path: 'a.txt', content: 'changed\n' });
      fifo(`.loupe/objects/${sha('original\n')}`);
      return { read: h.call('code_rollback', { modification_id: w.data!.modification_id }) };
    },
  },
  { name: 'modification log apply (snapshot of a FIFO)', run: async () => (fifo('p.txt'), { read: h.ctx.modlog.apply({ file: 'p.txt', abs: path.join(h.root, 'p.txt'), content: Buffer.from('x'), tool: 't', operation: 'overwrite', sessionId: 's' }) }) },
  { name: 'modification_log with the log a FIFO', run: async () => (fifo('.loupe/modifications.jsonl'), { read: h.call('modification_log', {}) }) },
  { name: 'write_file with the log a FIFO', run: async () => (fifo('.loupe/modifications.jsonl'), { read: h.call('write_file', { path: 'n.txt', content: 'x\n' }) }) },
  { name: 'write_file with .git/info/exclude a FIFO', run: async () => (fifo('.git/info/exclude'), { read: h.call('write_file', { path: 'n.txt', content: 'x\n' }) }) },
  { name: 'project rules with config.json a FIFO', okAllowed: true, run: async () => (fifo('.loupe/config.json'), { read: new ProjectConfig(h.root, { trustedDigest: () => null, trust: async () => undefined }).load() }) },
  { name: 'trust state with config.json a FIFO', okAllowed: true, run: async () => (fifo('.loupe/config.json'), { read: readTrustState(h.root, { trustedDigest: () => null, trust: async () => undefined }) }) },
  { name: 'grep (search.exclude) with config.json a FIFO', okAllowed: true, run: async () => (fifo('.loupe/config.json'), { read: h.call('grep', { pattern: 'x' }) }) },
  { name: 'session load with its file a FIFO', run: async () => (fifo('.loupe/sessions/ses-fifo.json'), { read: new SessionStore(h.root).load('ses-fifo') }) },
  { name: 'session list with a FIFO among them', okAllowed: true, run: async () => (fifo('.loupe/sessions/ses-fifo.json'), { read: new SessionStore(h.root).list() }) },
  { name: 'test command detection with package.json a FIFO', run: async () => (fifo('package.json'), { read: resolveTestCommand(h.root, {}) }) },
  ...['AGENTS.md', 'CLAUDE.md', '.cursorrules', '.github/copilot-instructions.md', '.cursor/rules/style.mdc', 'pkg/AGENTS.md', 'pkg/CLAUDE.md'].map((rel) => ({
    name: `instruction file ${rel} a FIFO`,
    okAllowed: true,
    run: async () => (fifo(rel), { read: findInstructions({ root: h.root, personalDir: null, touched: ['pkg/a.ts'] }) }),
  })),
  { name: 'grep over a folder holding a FIFO', okAllowed: true, run: async () => (fifo('sub/p.txt'), { read: h.call('grep', { pattern: 'x', path: 'sub' }) }) },
  { name: 'host file.read', run: async () => (fifo('p.txt'), { read: (await openHost()).handle('file.read', { path: 'p.txt' }) }) },
  { name: 'host modlog.fileDiff (Compare with HEAD)', run: async () => (fifo('p.txt'), { read: (await openHost()).handle('modlog.fileDiff', { path: 'p.txt' }) }) },
  {
    name: 'host modlog.rollback',
    run: async () => {
      const id = await modifiedThenFifo();
      return { read: (await openHost()).handle('modlog.rollback', { modification_id: id }) };
    },
  },
];

describe('a FIFO in place of a file never hangs a read', () => {
  it.each(PATHS)('$name answers within a second', async (p) => {
    h = await harness({ git: true });
    const out = await within((await p.run()).read);
    expect(out.settled).toBe(true);
    if (!p.okAllowed) expect(out).toMatchObject({ ok: false });
  });

  it('four FIFOs read at once do not stall other reads', async () => {
    h = await harness({ git: true });
    await h.write('plain.txt', 'plain\n');
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      await h.write(`f${i}.txt`, 'original\n');
      await h.call('read_file', { path: `f${i}.txt` });
      ids.push((await h.call('write_file', { path: `f${i}.txt`, content: 'changed\n' })).data!.modification_id as string);
    }
    const hostNow = await openHost();
    for (let i = 0; i < 4; i++) fifo(`f${i}.txt`);
    // Two kinds of reader, two FIFOs each: rollbacks and "Compare with HEAD".
    const stuck: Promise<unknown>[] = [
      ...[0, 1].map((i) => h.call('code_rollback', { modification_id: ids[i] })),
      ...[2, 3].map((i) => hostNow.handle('modlog.fileDiff', { path: `f${i}.txt` })),
    ];
    const outcomes = stuck.map((s) => within(s));
    const plain = await within(h.call('read_file', { path: 'plain.txt' }));
    expect(plain).toMatchObject({ settled: true, ok: true });
    for (const o of await Promise.all(outcomes)) expect(o).toMatchObject({ settled: true, ok: false });
  });
});
