// `loupe remote ssh://[user@]host[:port]/path | devcontainer:///path [--serve [--port N]] [--trust]`:
// a folder on another machine (or in its dev container), Loupe's host running there and the
// window here. `--serve` serves the window to the browser and prints its URL, one line on stdout
// as `loupe serve` does; without it the desktop app opens, or, where Electron cannot run, the
// same as --serve after saying why. Progress (connecting, installing) goes to stderr. Ctrl+C
// closes the window's side; the host there keeps running its turns.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { InvalidArgumentError } from '../errors';
import { parseArgs, parsePort } from '../cli/args';
import type { CliPaths } from '../cli/paths';
import { parseTarget } from './target';
import { cliRemoteWindows } from './windows';

const USAGE = 'Usage: loupe remote ssh://[user@]host[:port]/path | devcontainer:///path [--serve [--port N]] [--trust]';

/** Why the desktop app cannot open here, or null (then `command` runs it). */
function desktop(bundleDir: string, env: NodeJS.ProcessEnv): { reason: string } | { command: string } {
  let bin: string | null;
  try {
    // The electron package's main is the path of its binary.
    const resolved = createRequire(path.join(bundleDir, 'package.json'))('electron') as unknown;
    bin = typeof resolved === 'string' && existsSync(resolved) ? resolved : null;
  } catch {
    bin = null;
  }
  if (!bin) return { reason: 'the Electron binary is not installed here' };
  if (process.platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY) return { reason: 'there is no display (neither DISPLAY nor WAYLAND_DISPLAY is set)' };
  return { command: bin };
}

export async function runRemote(argv: string[], paths: CliPaths): Promise<number> {
  const { positionals, flags } = parseArgs(argv, { serve: 'boolean', port: 'string', trust: 'boolean' });
  const text = positionals[0];
  if (!text || positionals.length > 1) throw new InvalidArgumentError(USAGE);
  parseTarget(text);
  if (!flags.serve) {
    const d = desktop(paths.bundleDir, process.env);
    if ('command' in d) {
      const { ELECTRON_RUN_AS_NODE: _drop, ...env } = process.env;
      const child = spawn(d.command, [paths.bundleDir, text], { stdio: 'inherit', env });
      return await new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 1)));
    }
    process.stderr.write(`loupe: the desktop app cannot open here (${d.reason}); serving the window to your browser instead.\n`);
  }
  const windows = cliRemoteWindows(paths);
  const { url } = await windows.open(text, { port: parsePort(flags.port), progress: (m) => process.stderr.write(`loupe: ${m}\n`) });
  const session = await windows.session(text);
  if (flags.trust) {
    const view = await session.link.request('trust.get', undefined);
    if (view.needed && !view.trusted && view.digest) await session.link.request('trust.accept', { digest: view.digest });
  }
  // stdout carries exactly one line, the URL, as `loupe serve`'s does.
  process.stdout.write(`${url}\n`);
  process.stderr.write(`loupe: ${session.status.label}:${session.root} is open on 127.0.0.1 only. Open the URL above; Ctrl+C closes this side (the host there keeps running).\n`);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await windows.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  return -1;
}
