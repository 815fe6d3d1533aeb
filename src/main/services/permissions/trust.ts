// Workspace trust. `.loupe/config.json`, `.mcp.json` and Claude Code's `.claude/settings.json` and
// `.claude/settings.local.json` arrive with a clone, so what they grant (allow rules, test commands,
// language server commands, MCP servers, hooks: anything that runs code or widens access) applies
// only once the person has trusted this folder with these exact bytes. The trust is a sha256 of the
// files' bytes, kept per folder (realpath) in the user's settings: any change to one needs trust
// again (a Claude Code file counts only while it declares hooks: its other keys are not Loupe's).
// Deny and ask rules only narrow, so they apply whether trusted or not.
import { createHash } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { readInside } from '../files/safeOpen';
import { CONFIG_REL, checkLoupeConfig } from '../config/loupeConfig';
import { MCP_JSON_REL, McpJsonSchema, commandLine, declaredServers } from '../config/mcpServers';
import { CLAUDE_LOCAL_REL, CLAUDE_SETTINGS_REL, projectHookFiles, type HookGrant } from '../config/projectHooks';
import { declaresHooks, hookLine } from '../config/hooksConfig';
import { agentCommandLine, declaredAgents } from '../config/agentsConfig';
import { checkDocument } from '../config/validate';
import type { PermissionRule } from './types';

/** Where trust is kept: the user's settings (UserSettings), never the workspace. */
export interface TrustStore {
  trustedDigest(root: string): string | null;
  trust(root: string, digest: string): Promise<void>;
}

export const configDigest = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

/** The project's own config files as bytes (null: absent). */
export interface ProjectFiles {
  config: Buffer | null;
  mcp: Buffer | null;
  /** `.claude/settings.json` and `.claude/settings.local.json` (absent: not read, as none). */
  claude?: Buffer | null;
  claudeLocal?: Buffer | null;
}

/**
 * What trust is given to: the sha256 of `.loupe/config.json` alone when there is no `.mcp.json`
 * (as before it was read, so trust already given holds), else of both, each framed by its length.
 * null when the folder has neither.
 */
export function trustDigest(files: ProjectFiles): string | null {
  // Claude Code's files count only while they declare hooks, so trust given before they were read holds.
  const claude = [[CLAUDE_SETTINGS_REL, files.claude ?? null] as const, [CLAUDE_LOCAL_REL, files.claudeLocal ?? null] as const].filter(([, b]) => declaresHooks(b));
  if (!files.mcp && !claude.length) return files.config ? configDigest(files.config) : null;
  const h = createHash('sha256').update('loupe-trust\0');
  h.update(files.config ? `${CONFIG_REL} ${files.config.length}\0` : `${CONFIG_REL} none\0`);
  if (files.config) h.update(files.config);
  if (files.mcp) h.update(`\0${MCP_JSON_REL} ${files.mcp.length}\0`).update(files.mcp);
  for (const [rel, bytes] of claude) h.update(`\0${rel} ${bytes!.length}\0`).update(bytes!);
  return h.digest('hex');
}

/** What a project config would grant once trusted. */
export interface ProjectGrants {
  allow: PermissionRule[];
  tests: { language: string; command: string }[];
  /** Language servers the config names (`"lsp": {"go": {"command": [...]}}`). */
  servers: { language: string; command: string[] }[];
  /** MCP servers it would start (each after its own approval card): name, file, the command line or URL. */
  mcp: { name: string; file: string; target: string }[];
  /** Hooks it would run (each after its own approval card): event, matcher, the command line or URL, file. */
  hooks: HookGrant[];
  /** Other agents it would offer (each run only after its own approval card): name and command line. */
  agents: { name: string; target: string }[];
}

export interface TrustState {
  root: string;
  /** What the trust is given to (trustDigest); null when the folder has neither file. */
  digest: string | null;
  /** The project config files present: `.loupe/config.json`, `.mcp.json`. */
  files: string[];
  trusted: boolean;
  /** The config grants something that trust would turn on. */
  needed: boolean;
  grants: ProjectGrants;
}

export const NO_GRANTS: ProjectGrants = { allow: [], tests: [], servers: [], mcp: [], hooks: [], agents: [] };

/**
 * The grants of the parsed files: exactly the allow rules, test commands and MCP servers the
 * reader would apply (`mcpDoc`: `.mcp.json`, whose servers `.loupe/config.json`'s override by name).
 */
export function grantsOf(doc: unknown, mcpDoc?: unknown, claude: Pick<ProjectFiles, 'claude' | 'claudeLocal'> = {}): ProjectGrants {
  const { value } = checkLoupeConfig(doc);
  const allow = (value.permissions ?? []).filter((r) => r.action === 'allow');
  const tests = Object.entries(value.tests ?? {}).map(([language, command]) => ({ language, command }));
  const servers = Object.entries(typeof value.lsp === 'object' ? value.lsp : {}).flatMap(([language, s]) => (s ? [{ language, command: s.command }] : []));
  const own = declaredServers(value.mcpServers, 'project', CONFIG_REL).servers;
  const fromMcpJson = mcpDoc === undefined ? [] : declaredServers(checkDocument(mcpDoc, McpJsonSchema, MCP_JSON_REL).value.mcpServers, 'project', MCP_JSON_REL).servers;
  const mcp = [...own, ...fromMcpJson.filter((d) => !own.some((o) => o.name === d.name))].map((d) => ({ name: d.name, file: d.file, target: commandLine(d.entry) }));
  const hooks = projectHookFiles(value, claude.claude ?? null, claude.claudeLocal ?? null).hooks.map((h): HookGrant => ({ event: h.event, matcher: h.matcher, command: hookLine(h.handler), file: h.source }));
  const agents = declaredAgents(value.agents, 'project', CONFIG_REL).agents.map((a) => ({ name: a.name, target: agentCommandLine(a.entry) }));
  return { allow, tests, servers, mcp, hooks, agents };
}

const parseOrNull = (bytes: Buffer | null): unknown => {
  if (!bytes) return undefined;
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    return null;
  }
};

export function parseGrants(files: ProjectFiles): ProjectGrants {
  return grantsOf(parseOrNull(files.config) ?? {}, parseOrNull(files.mcp) ?? undefined, files);
}

export const grantCount = (g: ProjectGrants): number => g.allow.length + g.tests.length + g.servers.length + g.mcp.length + g.hooks.length + g.agents.length;

/** Trust of the project's config files for `root`. */
export function trustOf(root: string, files: ProjectFiles, store: TrustStore): TrustState {
  const digest = trustDigest(files);
  if (digest === null) return { root, digest: null, files: [], trusted: true, needed: false, grants: NO_GRANTS };
  const grants = parseGrants(files);
  const present = [...(files.config ? [CONFIG_REL] : []), ...(files.mcp ? [MCP_JSON_REL] : []), ...(declaresHooks(files.claude ?? null) ? [CLAUDE_SETTINGS_REL] : []), ...(declaresHooks(files.claudeLocal ?? null) ? [CLAUDE_LOCAL_REL] : [])];
  return { root, digest, files: present, trusted: store.trustedDigest(root) === digest, needed: grantCount(grants) > 0, grants };
}

async function readOwn(root: string, rel: string): Promise<Buffer | null> {
  try {
    return (await readInside(root, path.join(root, rel)))?.buf ?? null;
  } catch {
    return null;
  }
}

/** The config files' bytes, through real folders and never blocking on a FIFO; null where there are none to read. */
export async function readProjectFiles(root: string): Promise<ProjectFiles> {
  const [config, mcp, claude, claudeLocal] = await Promise.all([readOwn(root, CONFIG_REL), readOwn(root, MCP_JSON_REL), readOwn(root, CLAUDE_SETTINGS_REL), readOwn(root, CLAUDE_LOCAL_REL)]);
  return { config, mcp, claude, claudeLocal };
}

export async function readTrustState(root: string, store: TrustStore): Promise<TrustState> {
  const real = await realpath(root);
  return trustOf(real, await readProjectFiles(real), store);
}

/**
 * Trusts the folder with its config as it is now. `expected`: the digest the person was shown;
 * when the file changed since, nothing is trusted and the fresh state is returned.
 */
export async function trustCurrentConfig(root: string, store: TrustStore, expected?: string): Promise<TrustState> {
  const real = await realpath(root);
  const state = trustOf(real, await readProjectFiles(real), store);
  if (state.digest === null || (expected !== undefined && expected !== state.digest)) return state;
  if (!state.trusted) await store.trust(real, state.digest);
  return { ...state, trusted: true };
}

export function describeGrants(g: ProjectGrants): string {
  const parts = [
    ...g.allow.map((r) => `allow ${r.kind} "${r.pattern}"`),
    ...g.tests.map((t) => `test command (${t.language}) "${t.command}"`),
    ...g.servers.map((t) => `language server (${t.language}) "${t.command.join(' ')}"`),
    ...g.mcp.map((m) => `MCP server "${m.name}" (${m.target}) from ${m.file}`),
    ...g.hooks.map((h) => `${h.event} hook${h.matcher ? ` (${h.matcher})` : ''} "${h.command}" from ${h.file}`),
  ];
  return parts.length ? parts.join(', ') : 'nothing beyond the defaults';
}

/** The files whose grants are in this state (the config first). */
const grantingFiles = (g: ProjectGrants): string[] => [...new Set([...(g.allow.length || g.tests.length || g.servers.length ? [CONFIG_REL] : []), ...g.mcp.map((m) => m.file), ...g.hooks.map((h) => h.file)])];

/** The one line `loupe run | mcp | serve` print when they ignore a folder's grants. */
export function untrustedNotice(state: TrustState): string {
  const files = grantingFiles(state.grants).map((f) => path.join(state.root, f));
  return (
    `loupe: ignoring what ${files.join(' and ')} ${files.length > 1 ? 'allow' : 'allows'} (${describeGrants(state.grants)}): ` +
    `${state.root} is not trusted with this config. Trust it with --trust or \`loupe trust ${state.root}\`.`
  );
}
