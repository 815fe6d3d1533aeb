import { accessSync, constants } from 'node:fs';
import path from 'node:path';

export interface ShellChoice {
  path: string;
  name: string;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function which(cmd: string, env: NodeJS.ProcessEnv = process.env): string | null {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, cmd);
    if (isExecutable(candidate)) return candidate;
  }
  return null;
}

/**
 * The user's shell: $SHELL when it exists, else bash, zsh, sh.
 * `posixOnly` is for commands the agent runs: fish and nu do not speak POSIX sh syntax.
 */
export function selectShell(opts: { posixOnly?: boolean; env?: NodeJS.ProcessEnv } = {}): ShellChoice {
  const env = opts.env ?? process.env;
  if (process.platform === 'win32') {
    const comspec = env.COMSPEC || 'cmd.exe';
    return { path: comspec, name: path.basename(comspec) };
  }
  const fromEnv = env.SHELL;
  if (fromEnv && isExecutable(fromEnv)) {
    const name = path.basename(fromEnv);
    if (!opts.posixOnly || !['fish', 'nu', 'nushell', 'xonsh', 'elvish'].includes(name)) return { path: fromEnv, name };
  }
  const order = process.platform === 'darwin' ? ['zsh', 'bash', 'sh'] : ['bash', 'zsh', 'sh'];
  for (const name of order) {
    const found = which(name, env);
    if (found) return { path: found, name };
  }
  return { path: '/bin/sh', name: 'sh' };
}
