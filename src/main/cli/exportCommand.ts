// `loupe export` and `loupe import`: a session of a folder written out as Markdown (to read and
// share) or JSON (complete), and a JSON export taken back into a folder's sessions
// (docs/architecture.md, "Exporting a session"). Secrets from the person's settings never appear
// in an export.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { InvalidArgumentError } from '../errors';
import type { ChatMessage } from '../agent/llm/types';
import { createToolRegistry } from '../agent/tools/registry';
import { checkedBranches, type ChatRecord } from '../host/branches';
import { LlmSettingsFile } from '../host/llmSettings';
import { checkFormat, exportSession, importedSession, workspaceName } from '../host/sessionExport';
import { checkedEntries, entriesFromMessages } from '../host/transcript';
import { writeFileAtomic } from '../services/modlog/atomicWrite';
import { userLog } from '../services/log/userLog';
import { McpSignInStore } from '../services/mcp/signInStore';
import { defaultConfigDir } from '../services/settings/configDir';
import { mcpSignInItem, systemKeyStore } from '../services/settings/keyStore';
import { settingsSecrets } from '../services/settings/secrets';
import { newSessionId } from '../services/sessions/sessionStore';
import { composeWorkspace, openUserSettings } from '../workspace/compose';
import { parseArgs } from './args';
import { workspaceRoot } from './workspaceRoot';

const EXPORT_USAGE = 'Usage: loupe export [--cwd DIR] [--session ID] [--format md|json] [--output FILE]';
const IMPORT_USAGE = 'Usage: loupe import FILE [--cwd DIR]';

/** The folder's services for a moment: sessions and the modification log, nothing started. */
async function withWorkspace<T>(cwd: string | true | undefined, run: (services: ReturnType<typeof composeWorkspace>, user: ReturnType<typeof openUserSettings>) => Promise<T>): Promise<T> {
  const root = await workspaceRoot(typeof cwd === 'string' ? cwd : undefined);
  const configDir = defaultConfigDir();
  const user = openUserSettings(configDir);
  const { logger } = userLog({ configDir, stderr: 'env' });
  const services = composeWorkspace({ root, user, asker: { kind: 'deny' }, logger, lsp: false });
  try {
    return await run(services, user);
  } finally {
    await services.dispose();
  }
}

/** `loupe export`: the newest session, or `--session ID`, to stdout or `--output FILE`. */
export async function runExport(args: string[]): Promise<number> {
  const { positionals, flags } = parseArgs(args, { cwd: 'string', session: 'string', format: 'string', output: 'string' });
  if (positionals.length) throw new InvalidArgumentError(EXPORT_USAGE);
  const output = typeof flags.output === 'string' ? path.resolve(flags.output) : null;
  // An --output named .json means JSON unless --format says otherwise.
  const format = checkFormat(flags.format ?? (output?.toLowerCase().endsWith('.json') ? 'json' : undefined));
  const env = process.env;
  return withWorkspace(flags.cwd, async (services, user) => {
    const saved = await services.sessions.list();
    const id = typeof flags.session === 'string' ? flags.session : saved[0]?.id;
    if (!id) throw new InvalidArgumentError(`${services.root} has no saved session to export. ${EXPORT_USAGE}`);
    const record: ChatRecord = await services.sessions.load<ChatMessage>(id);
    const registry = createToolRegistry();
    record.entries = checkedEntries(record.entries) ?? entriesFromMessages(record.messages, (n, a) => registry.callFacts(n, a));
    record.branches = checkedBranches(record.branches);
    const configDir = path.dirname(user.file);
    const apiKey = (await new LlmSettingsFile(user, { keyStore: systemKeyStore(configDir, process.platform, env) }).read()).api_key ?? null;
    const signIns = new McpSignInStore(user, (url) => systemKeyStore(configDir, process.platform, env, mcpSignInItem(url)));
    const secrets = await settingsSecrets({ user, env, apiKey, signIn: (url) => signIns.mcpSignIn(url) });
    const { file_name, text } = await exportSession({ record, modlog: services.modlog, workspace: workspaceName(services.root), secrets }, format);
    if (!output) {
      process.stdout.write(text);
      return 0;
    }
    await writeFileAtomic(output, Buffer.from(text), 0o600);
    process.stderr.write(`loupe: exported ${record.title} (${id}) as ${format === 'json' ? 'JSON' : 'Markdown'} to ${output} (suggested name ${file_name})\n`);
    return 0;
  });
}

/** `loupe import FILE`: a JSON export becomes a session of the folder (a new id when its own is taken). */
export async function runImport(args: string[]): Promise<number> {
  const { positionals, flags } = parseArgs(args, { cwd: 'string' });
  if (positionals.length !== 1) throw new InvalidArgumentError(IMPORT_USAGE);
  const text = await readFile(path.resolve(positionals[0]!), 'utf8');
  const imported = importedSession(text);
  return withWorkspace(flags.cwd, async (services) => {
    const taken = new Set((await services.sessions.list()).map((s) => s.id));
    const id = /^ses-[A-Za-z0-9_-]{1,64}$/.test(imported.id) && !taken.has(imported.id) ? imported.id : newSessionId();
    const record: ChatRecord = { ...imported, id };
    record.entries = checkedEntries(record.entries);
    record.branches = checkedBranches(record.branches);
    await services.sessions.save(record);
    process.stdout.write(`${id}\n`);
    process.stderr.write(`loupe: imported "${record.title}" as ${id} into ${services.root}; open it in the chat's session list.\n`);
    return 0;
  });
}
