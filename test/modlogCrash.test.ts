// Crash safety: a writer rewriting a file through apply() is killed with SIGKILL
// again and again. The file must always hold exactly one whole version, and the log at most
// one torn line (its last), which reading tolerates. Each killed writer may leave the log's
// lock behind; the next takes it over because its holder is gone (logLock.ts), never by age.
import { spawn } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJsonLines } from '../src/main/services/modlog/jsonl';
import { ModificationLog } from '../src/main/services/modlog/modificationLog';
import { contentFor } from './support/crashWriter';
import { git, tempDir } from './support/tmp';

const ROUNDS = 12;
let bundleDir: { dir: string; cleanup: () => Promise<void> };
let writer: string;

beforeAll(async () => {
  // The child runs on plain Node, so the TypeScript writer is bundled once (dependencies included).
  bundleDir = await tempDir('loupe-crash-bundle-');
  await build({
    configFile: false,
    logLevel: 'silent',
    ssr: { noExternal: true },
    build: {
      ssr: path.join(__dirname, 'support/crashWriter.ts'),
      outDir: bundleDir.dir,
      emptyOutDir: false,
      minify: false,
      rollupOptions: { output: { format: 'es', entryFileNames: 'crash-writer.mjs' } },
    },
  });
  writer = path.join(bundleDir.dir, 'crash-writer.mjs');
  // Bounds for a broken build or writer, not budgets: a busy machine may take minutes.
}, 600_000);

afterAll(() => bundleDir?.cleanup());

function runAndKill(root: string, writesBeforeKill: number, extraDelayMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [writer, root, 'data.txt'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let done = 0;
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.on('data', (d: Buffer) => {
      done += (d.toString().match(/wrote/g) ?? []).length;
      if (done >= writesBeforeKill && !child.killed) setTimeout(() => child.kill('SIGKILL'), extraDelayMs);
    });
    child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve(done) : reject(new Error(`writer exited ${code}: ${stderr}`))));
  });
}

describe('crash safety of ModificationLog.apply', () => {
  it(`survives ${ROUNDS} SIGKILLs mid-write: whole file, at most one torn log line`, async () => {
    const { dir: root, cleanup } = await tempDir('loupe-crash-');
    try {
      git(root, 'init', '-q');
      await writeFile(path.join(root, 'data.txt'), contentFor(0));
      const versions = new Set([contentFor(0), contentFor(1)]);
      let completed = 0;
      for (let round = 0; round < ROUNDS; round++) {
        completed += await runAndKill(root, 1 + (round % 3), (round * 7) % 13);
        expect(versions.has(await readFile(path.join(root, 'data.txt'), 'utf8'))).toBe(true);
        const text = await readFile(path.join(root, '.loupe/modifications.jsonl'), 'utf8');
        const lines = text.split('\n');
        const last = lines.pop()!;
        expect(parseJsonLines(lines.join('\n')).skipped).toBe(0);
        expect(parseJsonLines(text).skipped).toBeLessThanOrEqual(1);
        if (last !== '') expect(() => JSON.parse(last)).toThrow();
      }
      // Every acknowledged write is in the log; the reader copes with whatever the last kill left.
      const log = new ModificationLog(root);
      const { entries } = await log.read();
      expect(entries.length).toBeGreaterThanOrEqual(completed);
      expect(new Set(entries.map((e) => e.modification_id)).size).toBe(entries.length);
      await log.apply({ file: 'data.txt', abs: path.join(root, 'data.txt'), content: Buffer.from('final\n'), tool: 'write_file', operation: 'overwrite', sessionId: 's' });
      expect((await log.read()).skipped).toBe(0);
      expect((await readdir(root)).filter((n) => n.endsWith('.loupe-tmp'))).toEqual([]);
    } finally {
      await cleanup();
    }
  }, 600_000);
});
