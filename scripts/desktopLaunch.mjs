// Runs the desktop app and, when Electron cannot run here, says why and what to do, then serves
// the same UI in the browser instead (what the README promises for `npm start`).
import { spawn } from 'node:child_process';

/** Electron failing this soon after launch never showed a usable window. */
export const STARTUP_MS = 15_000;
const STDERR_KEEP = 64 * 1024;

// Chromium's own words when it cannot create its sandbox: on Ubuntu >= 23.10 AppArmor forbids
// unprivileged user namespaces, and the setuid fallback (chrome-sandbox) is not root-owned 4755.
const SANDBOX_FAILURE = /SUID sandbox helper binary was found, but is not configured correctly|No usable sandbox!|chrome-sandbox/;

/**
 * What to tell the user about the AppArmor restriction: an AppArmor profile that lets this one
 * binary create user namespaces, as Ubuntu documents. Never a way to run without the sandbox.
 * @param {string} electronBin
 * @returns {string}
 */
export function appArmorAdvice(electronBin) {
  const profile = [
    'abi <abi/4.0>,',
    'include <tunables/global>',
    '',
    `profile loupe-electron ${JSON.stringify(electronBin)} flags=(unconfined) {`,
    '  userns,',
    '  include if exists <local/loupe-electron>',
    '}',
  ];
  return [
    'Electron could not start its sandbox: this Linux restricts unprivileged user namespaces through',
    "AppArmor (Ubuntu 23.10 and later), which Chromium's sandbox needs.",
    'Give the Electron binary an AppArmor profile that allows them, as Ubuntu documents for such apps',
    '(https://ubuntu.com/blog/ubuntu-23-10-restricted-unprivileged-user-namespaces):',
    '',
    "  sudo tee /etc/apparmor.d/loupe-electron >/dev/null <<'EOF'",
    ...profile.map((l) => (l ? `  ${l}` : '')),
    '  EOF',
    '  sudo apparmor_parser -r /etc/apparmor.d/loupe-electron',
    '',
    'then run `npm start` again. Keep the sandbox on: do not start Electron with --no-sandbox.',
  ].join('\n');
}

/**
 * Why Electron's run counts as "Electron cannot run here", or null when it ran (it exited
 * cleanly, was stopped by the user, or failed only after it had been up for a while).
 * @param {{ code: number | null, signal: NodeJS.Signals | null, stderr: string, elapsedMs: number, stopped: boolean, spawnError?: Error | null, electronBin: string, startupMs?: number }} r
 * @returns {string | null}
 */
export function electronFailure({ code, signal, stderr, elapsedMs, stopped, spawnError, electronBin, startupMs = STARTUP_MS }) {
  if (spawnError) return `Electron could not be started (${spawnError.message}).`;
  // Ctrl+C reaches Electron and us together; its exit may be seen before our handler runs.
  if (stopped || signal === 'SIGINT' || signal === 'SIGTERM' || signal === 'SIGHUP') return null;
  const sandbox = SANDBOX_FAILURE.test(stderr);
  if (sandbox) return appArmorAdvice(electronBin);
  if (code === 0 && !signal) return null;
  if (elapsedMs >= startupMs) return null;
  const last = stderr.split('\n').map((l) => l.trim()).filter(Boolean).pop();
  return `Electron exited (${signal ? `signal ${signal}` : `code ${code}`}) before the window opened${last ? `; its last words: ${last}` : ''}.`;
}

/**
 * Runs `electron`; if Electron cannot run, prints why and runs `serve`. Resolves with the exit
 * status `npm start` should end with.
 * @param {{
 *   electron: { command: string, args: string[], env: Record<string, string | undefined> },
 *   serve: { command: string, args: string[], env: Record<string, string | undefined> },
 *   cwd: string,
 *   startupMs?: number,
 *   log?: (line: string) => void,
 *   stderr?: { write(chunk: Buffer | string): unknown },
 *   onChild?: (kill: (signal: NodeJS.Signals) => void) => void,
 * }} o
 * @returns {Promise<{ code: number, fellBack: string | null }>}
 */
export async function runDesktopOrServe({ electron, serve, cwd, startupMs = STARTUP_MS, log = (l) => console.error(l), stderr = process.stderr, onChild = () => {} }) {
  const started = Date.now();
  let stopped = false;
  const child = spawn(electron.command, electron.args, { cwd, env: electron.env, stdio: ['inherit', 'inherit', 'pipe'] });
  // A signal the user sent (Ctrl+C) is a stop, never a failure to fall back from.
  onChild((signal) => {
    stopped = true;
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  });
  let kept = '';
  child.stderr?.on('data', (chunk) => {
    stderr.write(chunk);
    kept = (kept + chunk.toString()).slice(-STDERR_KEEP);
  });
  const result = await new Promise((resolve) => {
    child.once('error', (spawnError) => resolve({ code: null, signal: null, spawnError }));
    child.once('close', (code, signal) => resolve({ code, signal, spawnError: null }));
  });
  const why = electronFailure({ ...result, stderr: kept, elapsedMs: Date.now() - started, stopped, electronBin: electron.command, startupMs });
  if (why === null) return { code: exitStatus(result.code, result.signal), fellBack: null };

  log(`\nloupe: the desktop app could not run. ${why}\nloupe: serving Loupe in the browser instead (loupe serve).\n`);
  return { code: await runServe({ serve, cwd, log, onChild }), fellBack: why };
}

/**
 * Runs `loupe serve` in the foreground; resolves with its exit status.
 * @param {{ serve: { command: string, args: string[], env: Record<string, string | undefined> }, cwd: string, log?: (line: string) => void, onChild?: (kill: (signal: NodeJS.Signals) => void) => void }} o
 * @returns {Promise<number>}
 */
export async function runServe({ serve, cwd, log = (l) => console.error(l), onChild = () => {} }) {
  const child = spawn(serve.command, serve.args, { cwd, env: serve.env, stdio: 'inherit' });
  onChild((signal) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  });
  const r = await new Promise((resolve) => {
    child.once('error', (err) => {
      log(`loupe: could not start ${serve.command}: ${err.message}`);
      resolve({ code: 1, signal: null });
    });
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  return exitStatus(r.code, r.signal);
}

/** @param {number | null} code @param {NodeJS.Signals | null} signal */
function exitStatus(code, signal) {
  return code ?? (signal === 'SIGINT' ? 130 : signal === 'SIGTERM' ? 143 : 1);
}
