// `loupe acp [--cwd DIR] [--trust]`: Loupe's agent for an editor that speaks the Agent Client
// Protocol (Zed, JetBrains IDEs, Neovim's CodeCompanion…), over stdio: newline-delimited JSON-RPC
// on stdin and stdout, nothing else on stdout (logs go to stderr and the log file). Each session's
// folder gets its services from the same composition root as `run`, `serve` and `mcp`
// (docs/architecture.md, "loupe acp").
import { Readable, Writable } from 'node:stream';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { InvalidArgumentError } from '../../errors';
import { userLog } from '../../services/log/userLog';
import { describeProblem, type ConfigProblem } from '../../services/config/validate';
import { defaultConfigDir } from '../../services/settings/configDir';
import { systemKeyStore } from '../../services/settings/keyStore';
import { composeWorkspace, openUserSettings } from '../../workspace/compose';
import { parseArgs } from '../args';
import { watchForHooks } from '../run';
import { settleTrust } from '../trust';
import { workspaceRoot } from '../workspaceRoot';
import { AcpAgent } from './agent';
import { BUILTIN_COMMANDS, skillCommands } from './commands';
import { AcpFolders } from './folders';
import { capLines } from './lineCap';
import { approvalTimeoutMs } from './permissions';

const USAGE = 'Usage: loupe acp [--cwd DIR] [--trust]';
/** How long a folder's MCP servers may take to start before its first session is answered (they go on starting). */
const SERVERS_WAIT_MS = 10_000;
/** Exits this long after the client went away, whatever is still running down. */
const EXIT_GRACE_MS = 2000;

export async function runAcp(args: string[]): Promise<number> {
  const { flags, positionals } = parseArgs(args, { cwd: 'string', trust: 'boolean' });
  if (positionals.length) throw new InvalidArgumentError(`Unexpected argument: ${positionals[0]}. ${USAGE}`);
  const home = await workspaceRoot(typeof flags.cwd === 'string' ? flags.cwd : undefined);
  // stdout is the protocol: anything printed through the console goes to stderr instead.
  console.log = console.info = console.debug = console.error;
  const configDir = defaultConfigDir();
  const { logger } = userLog({ configDir, stderr: 'always' });
  const fileOnly = userLog({ configDir, stderr: 'never' }).logger;
  const say = (line: string) => process.stderr.write(`${line}\n`);
  const report = (p: ConfigProblem) => {
    say(`loupe: ${describeProblem(p)}`);
    fileOnly.warn('config.problem', { ...p });
  };
  const user = openUserSettings(configDir, report);
  const trust = flags.trust === true;
  // --trust is for the folder it names: a session elsewhere keeps that folder's own trust.
  await settleTrust(home, trust, say, user);
  const warn = (message: string) => {
    say(`loupe acp: ${message}`);
    fileOnly.warn('acp.warning', { message });
  };

  const agent = new AcpAgent({
    logger,
    home,
    approvalTimeoutMs: approvalTimeoutMs(process.env),
    commands: [() => BUILTIN_COMMANDS, skillCommands],
    warn,
    folders: (a) =>
      new AcpFolders({
        user,
        logger,
        env: process.env,
        keys: { keyStore: systemKeyStore(configDir, process.platform, process.env) },
        compose: (root, asker) => composeWorkspace({ root, user, asker, logger, reportConfig: report }),
        respond: (root) => (req, signal) => a.ask(root, req, signal),
        event: ({ session_id, event }) => a.session(session_id)?.event(event),
        buffers: (id) => a.session(id)?.buffers(),
        prepare: async ({ root, services }) => {
          if (root !== home) await settleTrust(root, false, say, user);
          services.onWarning(warn);
          await services.project.load();
          // --trust approves the servers and hooks the trusted config names, as for `loupe run`.
          if (trust && root === home) {
            services.mcp.approveConfigured();
            services.hooks.approveConfigured();
          }
          const watcher = await watchForHooks(services);
          return watcher ? () => watcher.stop() : undefined;
        },
        startServers: async ({ services }) => {
          const started = services.mcp.sync();
          await Promise.race([started, new Promise((r) => setTimeout(r, SERVERS_WAIT_MS).unref())]);
          for (const v of services.mcp.list()) if (v.status !== 'ready') say(`loupe: MCP server ${v.name}: ${v.status}${v.detail ? `: ${v.detail}` : ''}`);
        },
      }),
  });

  const input = (Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>).pipeThrough(capLines());
  const stream = ndJsonStream(Writable.toWeb(process.stdout) as WritableStream<Uint8Array>, input);
  const connection = agent.app().connect(stream);
  logger.info('acp.ready', { root: home });
  const stop = () => connection.close();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  await connection.closed.catch(() => undefined);
  process.off('SIGTERM', stop);
  process.off('SIGINT', stop);
  // Requests stop and sessions are saved; background processes and servers stop with their folders.
  await agent.dispose();
  logger.info('acp.closed', { root: home });
  setTimeout(() => process.exit(0), EXIT_GRACE_MS).unref();
  return 0;
}
