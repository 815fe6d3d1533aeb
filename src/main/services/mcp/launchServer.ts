// How a stdio MCP server is started (docs/architecture.md, "MCP servers"): its program and
// arguments exactly as configured, no shell reading them; inside the OS sandbox through the same
// launch as a command (the workspace writable, credentials hidden, the network only through its
// proxy), or plainly. Its environment is the few variables a program needs to run (as the MCP
// SDK's own stdio client gives) plus what its `env` names, never Loupe's whole environment: a
// repository's server has no business with the person's API keys.
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_INHERITED_ENV_VARS } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InvalidArgumentError } from '../../errors';
import { expandEnv, type McpServerDecl } from '../config/mcpServers';
import type { SandboxPolicy } from '../sandbox/bwrapPolicy';
import { prepareLaunch, type Launch } from '../sandbox/launch';
import { COMMAND_MARKER } from '../shell/cleanEnv';
import type { SpawnSpec } from './stdioTransport';

/** Inherited besides the SDK's (HOME, LOGNAME, PATH, SHELL, TERM, USER): the locale, so servers read and print text right. */
const ALSO_INHERITED = ['LANG', 'LC_ALL', 'LC_CTYPE', 'TZ'];

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

export interface ServerLaunch {
  spec: SpawnSpec;
  /** Closes what the sandbox opened for it (its temp folder, its network); call once it has exited. */
  close(): void;
}

/** The folder it runs in: its `cwd` (relative to the workspace, `~` for home), else the workspace. */
export function serverCwd(root: string, cwd: string | undefined): string {
  if (!cwd) return root;
  const expanded = cwd === '~' ? os.homedir() : cwd.startsWith('~/') ? path.join(os.homedir(), cwd.slice(2)) : cwd;
  return path.resolve(root, expanded);
}

export async function launchServer(root: string, decl: McpServerDecl, env: NodeJS.ProcessEnv, sandbox: SandboxPolicy | undefined, marker: string): Promise<ServerLaunch> {
  const entry = decl.entry;
  if (!entry.command) throw new InvalidArgumentError(`${decl.name} has no command`);
  const cwd = serverCwd(root, entry.cwd);
  if (!existsSync(cwd)) throw new InvalidArgumentError(`its cwd ${cwd} does not exist`);
  const own = expandEnv(entry.env, env, `mcpServers.${decl.name}.env`);
  // As the SDK's own stdio client does: a value that starts as a shell function is not passed on.
  const inherited = Object.fromEntries([...DEFAULT_INHERITED_ENV_VARS, ...ALSO_INHERITED].flatMap((k) => (env[k] !== undefined && !env[k]!.startsWith('()') ? [[k, env[k]!]] : [])));
  const base: NodeJS.ProcessEnv = { ...inherited, ...own, [COMMAND_MARKER]: marker };
  if (!sandbox) return { spec: { program: entry.command, argv: entry.args ?? [], env: base, cwd, marker }, close: () => {} };
  // The sandbox's launch takes a command line for a shell: `exec` with every word quoted, so the
  // shell runs exactly this program and reads nothing in its arguments.
  const line = `exec ${[entry.command, ...(entry.args ?? [])].map(quote).join(' ')}`;
  const launch: Launch = await prepareLaunch({ shell: '/bin/sh', command: line, cwd, sandbox });
  return { spec: { program: launch.program, argv: launch.argv, env: { ...base, ...launch.env }, cwd, marker }, close: () => launch.close() };
}
