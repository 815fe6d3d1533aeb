import { existsSync } from 'node:fs';
import { Host } from '../host/host';
import { defaultConfigDir } from '../host/configDir';
import { systemKeys } from '../services/settings/keyStore';
import { userLog } from '../services/log/userLog';
import { parseArgs, parsePort } from './args';
import { startServer } from './serve/server';
import type { CliPaths } from './paths';
import { settleTrust } from './trust';
import { openUserSettings } from '../workspace/compose';
import { workspaceRoot } from './workspaceRoot';
import { RemoteWindows } from '../remote/windows';

export async function runServe(argv: string[], paths: CliPaths): Promise<void> {
  const { positionals, flags } = parseArgs(argv, { port: 'string', trust: 'boolean' });
  const folder = positionals[0] ?? process.cwd();
  const staticDir = paths.rendererDir;
  if (!existsSync(staticDir)) {
    throw new Error(`The UI is not built (${staticDir} is missing). Run \`npm run build\` first.`);
  }
  const configDir = defaultConfigDir();
  const log = userLog({ configDir, stderr: 'env' });
  const keys = systemKeys(configDir);
  // Open Remote Folder and Reopen in Container: each remote folder gets a window of its own, served from here.
  const remote = new RemoteWindows({ configDir, bundleDir: paths.bundleDir, rendererDir: staticDir, user: openUserSettings(configDir), keys, logger: log.logger });
  const host = new Host({ transport: 'websocket', configDir, keys, logger: log.logger, logFile: log.file, remote });
  // The browser asks too (trust-prompt); the line names the folder for whoever reads the terminal.
  await settleTrust(await workspaceRoot(folder), flags.trust === true, (line) => process.stderr.write(`${line}\n`), openUserSettings(configDir));
  // Problems in the background (a folder that cannot be watched) are said here as well as in the page.
  host.onEvent((event, payload) => {
    if (event === 'workspace.notice') process.stderr.write(`loupe: ${(payload as { message: string }).message}\n`);
  });
  await host.open(folder);
  const running = await startServer({ host, staticDir, port: parsePort(flags.port), boot: () => host.bootData() });
  // stdout carries exactly one line, the URL, so scripts and tests can read it.
  process.stdout.write(`${running.url}\n`);
  host.readAhead();
  process.stderr.write(`loupe: serving ${host.current?.root} on 127.0.0.1 only. Open the URL above; Ctrl+C stops.\n`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await host.dispose();
    await remote.close();
    await running.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}
