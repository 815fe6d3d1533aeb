// A language server is a program reading the repository: it starts only as the config and trust
// allow, a crash neither loses nor stalls an edit, and `"lsp": false` starts nothing at all.
import { readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SERVER_MARKER } from '../../src/main/services/lsp/serverProcess';
import { harness, type Harness } from '../support/toolHarness';
import { until } from '../support/tmp';

const SLOW = 240_000;
const require = createRequire(import.meta.url);
const REAL_TSSERVER = require.resolve('typescript/lib/tsserver.js');
const TS_LS = require.resolve('typescript-language-server/lib/cli.mjs');
const TSCONFIG = JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'es2022', lib: ['es2022'] }, include: ['src'] });

let h: Harness | null = null;
afterEach(async () => {
  await h?.cleanup();
  h = null;
});

/** Processes of ours that carry a language server's marker for `root` (Linux /proc). */
function serverProcesses(root: string): number[] {
  const needle = Buffer.from(`${SERVER_MARKER}=${root}\0`);
  return readdirSync('/proc').filter((n) => /^\d+$/.test(n)).filter((n) => {
    try {
      return readFileSync(`/proc/${n}/environ`).includes(needle);
    } catch {
      return false;
    }
  }).map(Number);
}

type Diag = { available: boolean; introduced: { line: number; code?: string }[]; reason?: string };
const diagnosticsOf = (r: { data?: Record<string, unknown> }) => r.data?.diagnostics as Diag | undefined;

describe.runIf(process.platform === 'linux')('"lsp": false', () => {
  for (const [name, config, starts] of [
    ['servers on (the control)', {}, true],
    ['"lsp": false', { lsp: false }, false],
    ['"lsp": {"typescript": false}', { lsp: { typescript: false } }, false],
  ] as const) {
    it(
      `${name}: ${starts ? 'a server process starts' : 'no server process starts'} for a TypeScript edit`,
      async () => {
        h = await harness({ lsp: true });
        await h.write('.loupe/config.json', JSON.stringify({ ...config, limits: { diagnostics_wait_ms: 90_000 } }));
        await h.write('tsconfig.json', TSCONFIG);
        await h.write('src/a.ts', 'export const a: number = 1;\n');
        await h.call('read_file', { path: 'src/a.ts' });
        const r = await h.call('edit_file', { path: 'src/a.ts', old_str: 'number = 1', new_str: 'number = "x"' });
        expect(r.ok, r.output).toBe(true);
        const alive = serverProcesses(h.root);
        if (starts) {
          expect(diagnosticsOf(r)?.introduced).toHaveLength(1);
          expect(alive.length).toBeGreaterThan(0);
        } else {
          expect(r.data?.diagnostics).toBeUndefined();
          expect(r.output).not.toMatch(/problem|Diagnostics/);
          expect(alive).toEqual([]);
          expect(h.ctx.lsp!.started).toBe(0);
        }
      },
      SLOW,
    );
  }
});

describe('a server that crashes', () => {
  it(
    'leaves the edit written, saying diagnostics were unavailable, and is restarted for the next one',
    async () => {
      h = await harness({ lsp: true, git: true });
      // A relay to the real server that dies when a change carries CRASH_NOW: a crash mid-edit, on cue.
      const relay = path.join(h.sandbox, 'crashy.mjs');
      await writeFile(
        relay,
        `import { spawn } from 'node:child_process';
const child = spawn(process.execPath, [${JSON.stringify(TS_LS)}, '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
child.stdout.pipe(process.stdout);
process.stdin.on('data', (d) => {
  const s = d.toString('utf8');
  if (s.includes('textDocument/didChange') && s.includes('CRASH_NOW')) { child.kill('SIGKILL'); process.exit(1); }
  child.stdin.write(d);
});
process.stdin.on('end', () => child.kill());
`,
      );
      await h.write('.loupe/config.json', JSON.stringify({ lsp: { typescript: { command: [process.execPath, relay] } }, limits: { diagnostics_wait_ms: 90_000 } }));
      await h.trust();
      await h.write('tsconfig.json', TSCONFIG);
      await h.write('src/a.ts', 'export const a: number = 1;\n');
      await h.call('read_file', { path: 'src/a.ts' });
      const first = (await until(() => h!.ctx.lsp!.status().find((s) => s.state === 'ready'), 120_000, 100)).pid;

      const crashed = await h.call('edit_file', { path: 'src/a.ts', old_str: 'number = 1;', new_str: 'number = 1; // CRASH_NOW' });
      expect(crashed.ok, crashed.output).toBe(true);
      expect(diagnosticsOf(crashed)).toMatchObject({ available: false, introduced: [] });
      expect(diagnosticsOf(crashed)!.reason).toMatch(/exited with code 1|stopped/);
      expect(crashed.output).toMatch(/Diagnostics unavailable \(crashy\.mjs: .+\)\.$/);
      expect(await h.read('src/a.ts')).toContain('CRASH_NOW');

      // Restarted on its own (backoff), with the document as the edit left it.
      await until(() => h!.ctx.lsp!.status().find((s) => s.state === 'ready' && s.pid !== first), 120_000, 100);
      const next = await h.call('edit_file', { path: 'src/a.ts', old_str: 'number = 1; // CRASH_NOW', new_str: 'number = "one";' });
      expect(diagnosticsOf(next)).toMatchObject({ available: true, introduced: [expect.objectContaining({ line: 1, code: '2322' })] });
    },
    SLOW,
  );
});

describe.runIf(process.platform === 'linux')("the workspace's own node_modules/typescript", () => {
  /** A TypeScript that records being loaded, then is the real one (version 5.9.99, to tell it apart). */
  async function project(opts: { sandbox?: 'off' }): Promise<{ h: Harness; marker: string }> {
    h = await harness({ lsp: true, sandbox: opts.sandbox });
    const marker = path.join(h.sandbox, 'ts-was-loaded');
    await h.write('node_modules/typescript/package.json', JSON.stringify({ name: 'typescript', version: '5.9.99', main: 'lib/typescript.js' }));
    await h.write('node_modules/typescript/lib/tsserver.js', `try { require('fs').appendFileSync(${JSON.stringify(marker)}, 'loaded\\n'); } catch {}\nrequire(${JSON.stringify(REAL_TSSERVER)});\n`);
    await h.write('node_modules/typescript/lib/typescript.js', `module.exports = require(${JSON.stringify(require.resolve('typescript'))});\n`);
    await h.write('.loupe/config.json', JSON.stringify({ limits: { diagnostics_wait_ms: 90_000 } }));
    await h.write('tsconfig.json', TSCONFIG);
    await h.write('src/a.ts', 'export const a: number = 1;\n');
    return { h, marker };
  }

  const exists = (p: string) => {
    try {
      readFileSync(p);
      return true;
    } catch {
      return false;
    }
  };

  async function breakType(h: Harness): Promise<Diag> {
    await h.call('read_file', { path: 'src/a.ts' });
    const r = await h.call('edit_file', { path: 'src/a.ts', old_str: 'number = 1', new_str: 'number = "x"' });
    return diagnosticsOf(r)!;
  }

  it(
    'untrusted, even without the sandbox: never loaded; Loupe’s own TypeScript answers',
    async () => {
      const { h, marker } = await project({ sandbox: 'off' });
      expect(await breakType(h)).toMatchObject({ available: true, introduced: [expect.objectContaining({ code: '2322' })] });
      expect(h.ctx.lsp!.status()[0]).toMatchObject({ sandboxed: false, typescript: { version: '5.9.3' } });
      expect(exists(marker)).toBe(false);
    },
    SLOW,
  );

  it(
    'trusted: it is the TypeScript the server uses',
    async () => {
      const { h, marker } = await project({ sandbox: 'off' });
      await h.trust();
      expect(await breakType(h)).toMatchObject({ available: true, introduced: [expect.objectContaining({ code: '2322' })] });
      expect(h.ctx.lsp!.status()[0]).toMatchObject({ typescript: { version: '5.9.99' } });
      expect(readFileSync(marker, 'utf8')).toContain('loaded');
    },
    SLOW,
  );

  it(
    'trusted, inside the sandbox: used, and it cannot write outside its temp folder',
    async () => {
      const { h, marker } = await project({});
      await h.trust();
      expect(await breakType(h)).toMatchObject({ available: true });
      const status = h.ctx.lsp!.status()[0];
      expect(status.typescript?.version).toBe('5.9.99');
      // Where bubblewrap works the marker's write is refused; elsewhere the server runs outside.
      expect(exists(marker)).toBe(!status.sandboxed);
    },
    SLOW,
  );
});
