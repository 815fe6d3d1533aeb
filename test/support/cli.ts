// The built `loupe` command (`node bin/loupe.mjs …`) against the scripted model, in a sandbox
// folder: what the CLI end-to-end tests share. Needs `npx electron-vite build` first.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startScriptedLlm, type ScriptedLlm } from './scriptedLlm';
import { tempDir } from './tmp';

export const ROOT = path.resolve(__dirname, '../..');
export const BIN = path.join(ROOT, 'bin/loupe.mjs');

export interface CliFixture {
  llm: ScriptedLlm;
  /** A temp folder for this file's repositories, removed at the end. */
  sandbox: string;
}

/** Registers the hooks: one scripted model and one sandbox per test file, requests cleared per test. */
export function useCliFixture(prefix: string): CliFixture {
  const fx = {} as CliFixture;
  let cleanup: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    if (!existsSync(path.join(ROOT, 'out/main/cli.js'))) throw new Error('loupe is not built: run `npm run build` before this test.');
    fx.llm = await startScriptedLlm();
    const t = await tempDir(prefix);
    fx.sandbox = t.dir;
    cleanup = t.cleanup;
  });
  afterEach(() => {
    if (fx.llm) fx.llm.requests.length = 0;
  });
  afterAll(async () => {
    await fx.llm?.close();
    await cleanup?.();
  });
  return fx;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `loupe …` to its end (killed after `killAfterMs`, 30 s); `undefined` in env removes a variable; `input` is piped to stdin. */
export function runLoupe(args: string[], opts: { cwd?: string; env?: Record<string, string | undefined>; input?: string; killAfterMs?: number } = {}): Promise<CliResult> {
  const env: Record<string, string | undefined> = { ...process.env, ...opts.env };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: opts.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    // No input: stdin ends at once, as `< /dev/null` would.
    child.stdin.end(opts.input ?? '');
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.killAfterMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
