// `loupe serve | run | mcp | trust`: the same Host behind other transports. Plain Node only:
// nothing reachable from here may import 'electron'.
import { LoupeError } from '../errors';
import { LOUPE_VERSION } from '../host/version';
import { userLog } from '../services/log/userLog';
import { defaultConfigDir } from '../services/settings/configDir';
import type { CliPaths } from './paths';

const USAGE = `Usage:
  loupe serve [folder] [--port N] [--trust]
                                    the Loupe UI in your browser (127.0.0.1 only)
  loupe mcp [--cwd DIR] [--trust]   Loupe's tools as an MCP server over stdio
  loupe acp [--cwd DIR] [--trust]   Loupe's agent for your editor (Zed, JetBrains, Neovim…) over
                                    the Agent Client Protocol, on stdio
  loupe run [--cwd DIR] [--worktree NAME] [--yes | --deny] [--json] [--session ID] [--trust] "prompt"
  loupe run --undo-last [--cwd DIR] [--worktree NAME] [--session ID] [--skip-conflicts] [--json]
                                    the agent, headless (--worktree: in Loupe's worktree NAME,
                                    branch loupe/NAME, made from HEAD when new)
  loupe worktree list | diff NAME | apply NAME [--files A,B] | merge NAME [--message MSG]
               | discard NAME [--confirm DIGEST] | prune [--cwd DIR] [--json]
                                    Loupe's worktrees: size and age, bring one's changes into
                                    the main folder (refused over conflicts), remove one safely
  loupe export [--cwd DIR] [--session ID] [--format md|json] [--output FILE]
                                    a session (the newest by default) as Markdown to read and
                                    share, or JSON, complete; secrets from your settings left out
  loupe import FILE [--cwd DIR]     a JSON export back into the folder's sessions
  loupe remote ssh://[user@]host[:port]/path | devcontainer:///path [--serve [--port N]] [--trust]
                                    a folder on another machine over ssh, or in its dev container:
                                    Loupe's host runs there, the window here (--serve: in your
                                    browser, printing the URL as \`loupe serve\` does)
  loupe run --remote ssh://…/path [--yes | --deny] [--json] "prompt"
                                    the agent headless, working on the remote folder
  loupe trust [folder]              trust the folder's .loupe/config.json as it is now
                                    (its allow rules and test commands apply from then on)
  loupe --version`;

export async function main(argv: string[], paths: CliPaths): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'serve':
        await (await import('./serveCommand')).runServe(rest, paths);
        return -1; // keeps running until a signal
      case 'mcp':
        await (await import('./mcp')).runMcp(rest);
        return -1;
      case 'acp':
        return await (await import('./acp/index')).runAcp(rest);
      case 'run':
        return await (await import('./run')).runRun(rest, paths);
      case 'trust':
        return await (await import('./trust')).runTrust(rest);
      case 'export':
        return await (await import('./exportCommand')).runExport(rest);
      case 'import':
        return await (await import('./exportCommand')).runImport(rest);
      case 'worktree':
        return await (await import('./worktree')).runWorktree(rest);
      case 'remote':
        return await (await import('../remote/remoteCommand')).runRemote(rest, paths);
      case 'remote-server':
        // What Loupe runs on a remote machine through ssh or a container's exec; never typed.
        return await (await import('../remote/serverCommand')).runRemoteServer(rest, paths.bundleDir);
      case '--version':
      case '-v':
        process.stdout.write(`${LOUPE_VERSION}\n`);
        return 0;
      case undefined:
      case '--help':
      case '-h':
      case 'help':
        process.stdout.write(`${USAGE}\n`);
        return command === undefined ? 1 : 0;
      default:
        process.stderr.write(`loupe: unknown command '${command}'\n${USAGE}\n`);
        return 2;
    }
  } catch (err) {
    const msg = err instanceof LoupeError ? `${err.code}: ${err.message}` : (err as Error).message;
    process.stderr.write(`loupe ${command}: ${msg}\n`);
    // Not an error Loupe meant to report: a bug, whose stack the person's message leaves out.
    if (!(err instanceof LoupeError)) userLog({ configDir: defaultConfigDir() }).logger.error('cli.crashed', { command, error: err });
    return 1;
  }
}
