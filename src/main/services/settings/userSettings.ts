// User-level settings (`<config dir>/settings.json`), the one reader and writer of that file:
// the permission rules that apply to every workspace (below the project's own), the folders
// the person trusted with their project config, and the model settings ("llm", whose key the
// host's LlmSettingsFile places). Read on demand with a change check, so an edit in an editor
// takes effect on the next decision. Each key is checked on its own: a bad or unknown one is
// reported once with its line and column and ignored, and the others still apply.
import { readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { InvalidArgumentError } from '../../errors';
import { ProblemReporter, checkText, describeProblem, type ConfigProblem } from '../config/validate';
import { PermissionRuleSchema, type PermissionRule } from '../permissions/types';
import { ProcessLimitsSchema, SubagentLimitsSchema } from '../config/loupeConfig';
import { McpServersSchema, declaredServers, type McpServerDecl, type McpServerEntry } from '../config/mcpServers';
import { AgentsSchema, declaredAgents, type AgentDecl, type AgentEntry } from '../config/agentsConfig';
import { HOOK_SOURCES, HooksSettingsShape, NO_FILE_HOOKS, fileHooks, type FileHooks } from '../config/hooksConfig';
import { writeJsonAtomic } from './atomicJson';

const ModelRowSchema = z.strictObject({
  input_usd_per_mtok: z.number().nonnegative().optional(),
  output_usd_per_mtok: z.number().nonnegative().optional(),
  images: z.boolean().optional(),
});

/** A path inside the main folder, as the person writes it: relative, no `..` step. */
const WorktreeRelSchema = z.string().refine((p) => p.length > 0 && !p.startsWith('/') && !/^[A-Za-z]:/.test(p) && !p.split(/[\\/]/).includes('..'), 'must be a path inside the folder, without ..');

const TrustSchema = z.object({ config_sha256: z.string().regex(/^[0-9a-f]{64}$/), trusted_at: z.string().optional() });

/** The whole file. */
export const SettingsSchema = z.object({
  permissions: z.array(PermissionRuleSchema).optional(),
  /** Commands in the OS sandbox for every project ("auto", the default) or never; a trusted project's own key wins. */
  sandbox: z.enum(['auto', 'off']).optional(),
  /** Limits for every workspace where its own `.loupe/config.json` does not set them (background processes). */
  limits: ProcessLimitsSchema.optional(),
  subagents: SubagentLimitsSchema.optional(),
  /** Realpath of a workspace → the sha256 of the `.loupe/config.json` bytes the person trusted. */
  trusted_folders: z.record(z.string(), TrustSchema).optional(),
  /** The person's own MCP servers, for every workspace: they start without asking. */
  mcpServers: McpServersSchema.optional(),
  /** Realpath of a workspace → a repository's server name → the digest of the configuration the person approved starting. */
  mcp_servers_approved: z.record(z.string(), z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/))).optional(),
  /** Realpath of a workspace → the servers the person disabled there. */
  mcp_servers_disabled: z.record(z.string(), z.array(z.string())).optional(),
  /** Realpath of a workspace → `skill:<name>` or `command:<name>` → the digest of the allowed-tools list the person approved there. */
  skills_approved: z.record(z.string(), z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/))).optional(),
  /**
   * A remote server's URL → its sign-in: the registered client and the tokens where no keychain
   * answers (this file is owner-only), else `"store": "keychain"` alone (mcp/signInStore.ts).
   */
  mcp_oauth: z
    .record(z.string(), z.looseObject({ client: z.record(z.string(), z.unknown()).optional(), tokens: z.record(z.string(), z.unknown()).optional(), store: z.literal('keychain').optional(), rev: z.string().optional() }))
    .optional(),
  /** The person's own other agents (ACP), offered in every folder's session bar; each runs in the OS sandbox. */
  agents: AgentsSchema.optional(),
  /** Realpath of a workspace → a repository's agent name → the digest of the configuration the person approved running. */
  agents_approved: z.record(z.string(), z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/))).optional(),
  /** The person's own hooks for every folder, in Claude Code's shape; `disableAllHooks`; the URLs http hooks may post to. */
  ...HooksSettingsShape,
  /** Realpath of a workspace → the digests of the repository's hooks the person approved running there. */
  hooks_approved: z.record(z.string(), z.array(z.string().regex(/^[0-9a-f]{64}$/))).optional(),
  /** Realpath of a workspace → the digests of hooks the person turned off there. */
  hooks_disabled: z.record(z.string(), z.array(z.string().regex(/^[0-9a-f]{64}$/))).optional(),
  /** Realpath of a workspace → rules for that folder only, kept out of its shared config ("allow always", only me). */
  folder_permissions: z.record(z.string(), z.array(PermissionRuleSchema)).optional(),
  /** Where Loupe keeps its git worktrees (an absolute folder outside every workspace; default beside each repository). */
  worktrees: z
    .strictObject({
      folder: z.string().refine((f) => f.startsWith('/') || /^[A-Za-z]:[\\/]/.test(f), 'must be an absolute path').optional(),
      /** Untracked files of the main folder copied into each new worktree (`.env`). */
      copy: z.array(WorktreeRelSchema).optional(),
      /** Folders of the main folder linked from each new worktree (`node_modules`), never copied. */
      link: z.array(WorktreeRelSchema).optional(),
      /** Keep one checkout ready so the next worktree is made at once (default true; costs one checkout's disk space). */
      spare: z.boolean().optional(),
    })
    .optional(),
  /** Remote workspaces: how Loupe runs ssh and picks a container engine (docs/architecture.md, "Remote workspaces"). */
  remote: z
    .strictObject({
      /** Arguments for every `ssh` Loupe runs, before the host (`["-F", "/path/to/ssh_config"]`, `["-i", "~/.ssh/work"]`). */
      ssh_args: z.array(z.string()).optional(),
      /** The ssh program (default: `ssh` on PATH). */
      ssh_path: z.string().optional(),
      /** Dev containers: "docker" or "podman" (default: the first that answers). */
      container_engine: z.enum(['docker', 'podman']).optional(),
      /** Dev containers: forward this machine's SSH agent into the container (default: never). */
      forward_ssh_agent: z.boolean().optional(),
    })
    .optional(),
  llm: z
    .object({
      base_url: z.string().regex(/^https?:\/\//i, 'must start with http:// or https://').optional(),
      model: z.string().optional(),
      context_tokens: z.number().int().positive().optional(),
      /** The key in plain text, in an owner-only file, where no keychain answers. */
      api_key: z.string().optional(),
      /** "keychain": the key is in the OS keychain. */
      api_key_store: z.literal('keychain').optional(),
      /** A key an earlier desktop app sealed with Electron's safeStorage. */
      api_key_enc: z.string().optional(),
      /** Model name → what Loupe should know of it: USD per million tokens, whether it takes images. */
      models: z.record(z.string().min(1), ModelRowSchema).optional(),
    })
    .optional(),
});

export type LlmSection = NonNullable<z.output<typeof SettingsSchema>['llm']>;

export const SETTINGS_FILE = 'settings.json';

type ProcessLimitsSection = NonNullable<z.output<typeof SettingsSchema>['limits']>;
export type SubagentLimitsSection = NonNullable<z.output<typeof SettingsSchema>['subagents']>;

type McpState = { approved: Record<string, Record<string, string>>; disabled: Record<string, string[]> };

type Loaded = {
  key: string;
  rules: PermissionRule[];
  folders: Record<string, PermissionRule[]>;
  sandbox?: 'auto' | 'off';
  limits?: ProcessLimitsSection;
  subagents?: SubagentLimitsSection;
  trusted: Record<string, string>;
  llm: LlmSection;
  mcpServers: McpServerDecl[];
  mcp: McpState;
  agents: AgentDecl[];
  agentsApproved: Record<string, Record<string, string>>;
  hooks: FileHooks;
  hookState: { approved: Record<string, string[]>; disabled: Record<string, string[]> };
  grants: Record<string, Record<string, string>>;
  worktreesFolder?: string;
  worktreeSetup: { copy: string[]; link: string[] };
  worktreeSpare: boolean;
  remote: RemoteSection;
  problems: ConfigProblem[];
};

export type RemoteSection = NonNullable<z.output<typeof SettingsSchema>['remote']>;

const EMPTY: Loaded = { key: '', rules: [], folders: {}, trusted: {}, llm: {}, mcpServers: [], mcp: { approved: {}, disabled: {} }, hooks: NO_FILE_HOOKS, hookState: { approved: {}, disabled: {} }, grants: {}, agents: [], agentsApproved: {}, worktreeSetup: { copy: [], link: [] }, worktreeSpare: true, remote: {}, problems: [] };

export interface UserSettingsOptions {
  /** Told each problem of the file once (a bad or unknown key: where, and what is wrong). */
  report?: (problem: ConfigProblem) => void;
}

/** One per config dir per process, held by whoever composes the workspace (see workspace/compose). */
export class UserSettings {
  readonly file: string;
  private cache: Loaded | null = null;
  /** Writes from this instance, one after another, so no update is lost. */
  private writeChain: Promise<unknown> = Promise.resolve();

  private readonly reporter: ProblemReporter;

  constructor(configDir: string, opts: UserSettingsOptions = {}) {
    this.file = path.join(configDir, SETTINGS_FILE);
    this.reporter = new ProblemReporter(opts.report ?? (() => undefined));
  }

  /** The user's permission rules; [] when the file is missing or malformed (see `problem`). */
  permissions = (): PermissionRule[] => this.load().rules;

  /** The user's own rules for one folder (a realpath): "allow always" answered for "only me". */
  folderPermissions(root: string): PermissionRule[] {
    return this.load().folders[root] ?? [];
  }

  /** Adds rules for one folder only, to the user's settings (never to the folder's shared config). */
  addFolderRules(root: string, rules: PermissionRule[]): Promise<void> {
    return this.update((doc) => {
      const all = doc.folder_permissions && typeof doc.folder_permissions === 'object' && !Array.isArray(doc.folder_permissions) ? (doc.folder_permissions as Record<string, unknown>) : {};
      const mine = Array.isArray(all[root]) ? (all[root] as unknown[]) : [];
      const fresh = rules.filter((r) => !mine.some((m) => JSON.stringify(m) === JSON.stringify(r)));
      return { ...doc, folder_permissions: { ...all, [root]: [...mine, ...fresh] } };
    });
  }

  /** How ssh is run and which container engine is used for remote workspaces. */
  remote = (): RemoteSection => this.load().remote;

  /** The user's "sandbox" setting; undefined when unset. */
  sandboxMode = (): 'auto' | 'off' | undefined => this.load().sandbox;

  /** The user's limits for background processes; {} when unset. */
  processLimits = (): ProcessLimitsSection => this.load().limits ?? {};

  /** The user's limits for subagents; {} when unset. */
  subagentLimits = (): SubagentLimitsSection => this.load().subagents ?? {};

  /** The folder the person chose for Loupe's worktrees; undefined: beside each repository. */
  worktreesFolder = (): string | undefined => this.load().worktreesFolder;

  /** What a new worktree gets from the main folder besides its checkout: files copied, folders linked. */
  worktreeSetup = (): { copy: string[]; link: string[] } => this.load().worktreeSetup;

  /** Whether a checkout is kept ready for the next worktree (`worktrees.spare`, default true). */
  worktreeSpare = (): boolean => this.load().worktreeSpare;

  /** The person's own MCP servers (`mcpServers`), each valid one. */
  mcpServers = (): McpServerDecl[] => this.load().mcpServers;

  /**
   * Writes the person's own server `name` (null: removes it); `previous`: the name it had, when the
   * form renamed it. Other servers, valid or not, stay as written.
   */
  setMcpServer(name: string, entry: McpServerEntry | null, previous?: string): Promise<void> {
    return this.update((doc) => {
      const servers = { ...objectAt(doc, 'mcpServers') };
      if (previous !== undefined && previous !== name) delete servers[previous];
      if (entry) servers[name] = entry;
      else delete servers[name];
      return { ...doc, mcpServers: servers };
    });
  }

  /** The configuration digest the person approved for a repository's server in this folder, or null. */
  mcpApproval(root: string, name: string): string | null {
    return this.load().mcp.approved[root]?.[name] ?? null;
  }

  /** Remembers that the person lets `root`'s server `name` start with the configuration `digest`. */
  approveMcpServer(root: string, name: string, digest: string): Promise<void> {
    return this.update((doc) => {
      const all = objectAt(doc, 'mcp_servers_approved');
      return { ...doc, mcp_servers_approved: { ...all, [root]: { ...objectAt(all, root), [name]: digest } } };
    });
  }

  /** The allowed-tools list (its digest) the person approved for a repository's skill or command in this folder, or null. */
  grantApproval(root: string, key: string): string | null {
    return this.load().grants[root]?.[key] ?? null;
  }

  /** Remembers that the person lets `root`'s skill or command `key` pre-approve the tools of the list `digest`. */
  approveGrant(root: string, key: string, digest: string): Promise<void> {
    return this.update((doc) => {
      const all = objectAt(doc, 'skills_approved');
      return { ...doc, skills_approved: { ...all, [root]: { ...objectAt(all, root), [key]: digest } } };
    });
  }

  /** The servers the person disabled in this folder. */
  mcpDisabled(root: string): string[] {
    return this.load().mcp.disabled[root] ?? [];
  }

  setMcpDisabled(root: string, name: string, disabled: boolean): Promise<void> {
    return this.update((doc) => {
      const all = objectAt(doc, 'mcp_servers_disabled');
      const list = Array.isArray(all[root]) ? (all[root] as unknown[]).filter((n): n is string => typeof n === 'string' && n !== name) : [];
      return { ...doc, mcp_servers_disabled: { ...all, [root]: disabled ? [...list, name] : list } };
    });
  }

  /** The person's hooks in this file, its `disableAllHooks` and `allowedHttpHookUrls`. */
  hooks = (): FileHooks => this.load().hooks;

  /** The digests of the repository's hooks the person approved running in this folder. */
  hookApprovals(root: string): string[] {
    return this.load().hookState.approved[root] ?? [];
  }

  approveHook(root: string, digest: string): Promise<void> {
    return this.update((doc) => addToList(doc, 'hooks_approved', root, digest, true));
  }

  /** The digests of the hooks the person turned off in this folder. */
  hooksDisabled(root: string): string[] {
    return this.load().hookState.disabled[root] ?? [];
  }

  setHookDisabled(root: string, digest: string, disabled: boolean): Promise<void> {
    return this.update((doc) => addToList(doc, 'hooks_disabled', root, digest, disabled));
  }

  /** The person's own other agents (`agents`), each valid one. */
  agents = (): AgentDecl[] => this.load().agents;

  /** The digest of a repository's agent the person approved running in this folder, if any. */
  agentApproval(root: string, name: string): string | null {
    return this.load().agentsApproved[root]?.[name] ?? null;
  }

  approveAgent(root: string, name: string, digest: string): Promise<void> {
    return this.update((doc) => {
      const all = objectAt(doc, 'agents_approved');
      return { ...doc, agents_approved: { ...all, [root]: { ...objectAt(all, root), [name]: digest } } };
    });
  }

  /** Writes one of the person's agents (a ready entry they enabled), or removes it (null). */
  setAgent(name: string, entry: AgentEntry | null): Promise<void> {
    return this.update((doc) => {
      const { [name]: _old, ...rest } = objectAt(doc, 'agents');
      return { ...doc, agents: entry ? { ...rest, [name]: entry } : rest };
    });
  }

  /** A remote MCP server's sign-in as this file holds it: client and tokens, or where they are (mcp/signInStore.ts reads it). */
  async mcpSignIn(url: string): Promise<Record<string, unknown>> {
    const doc = await this.document();
    return objectAt(doc ? objectAt(doc, 'mcp_oauth') : {}, url);
  }

  /** Replaces that server's entry whole, so a sign-in moved to the keychain leaves no token behind. */
  setMcpSignIn(url: string, entry: Record<string, unknown>): Promise<void> {
    return this.update((doc) => ({ ...doc, mcp_oauth: { ...objectAt(doc, 'mcp_oauth'), [url]: entry } }));
  }

  /** The model settings as saved; fields that fail the schema are left out. */
  llm(): LlmSection {
    return this.load().llm;
  }

  /** What is wrong with the file now, one line per problem; null when nothing is. */
  get problem(): string | null {
    const { problems } = this.load();
    return problems.length ? problems.map(describeProblem).join('; ') : null;
  }

  /** The config digest this folder (a realpath) was trusted with, or null. */
  trustedDigest(root: string): string | null {
    return this.load().trusted[root] ?? null;
  }

  /** Remembers that the person trusts `root` with the config whose bytes hash to `digest`. */
  trust(root: string, digest: string): Promise<void> {
    return this.update((doc) => {
      const folders = doc.trusted_folders && typeof doc.trusted_folders === 'object' && !Array.isArray(doc.trusted_folders) ? (doc.trusted_folders as Record<string, unknown>) : {};
      return { ...doc, trusted_folders: { ...folders, [root]: { config_sha256: digest, trusted_at: new Date().toISOString() } } };
    });
  }

  /** The file as an object ({} when missing), or null when it is not a JSON object. */
  async document(): Promise<Record<string, unknown> | null> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch {
      return {};
    }
    try {
      const v = JSON.parse(text) as unknown;
      return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
    } catch {
      return null;
    }
  }

  /** Read, change, write atomically (owner-only), keeping every key the change does not touch. */
  update(change: (doc: Record<string, unknown>) => Record<string, unknown> | Promise<Record<string, unknown>>): Promise<void> {
    const job = this.writeChain.catch(() => undefined).then(async () => {
      const doc = await this.document();
      if (doc === null) throw new InvalidArgumentError(`${this.file} is not a JSON object; fix or remove it, then try again.`);
      await writeJsonAtomic(this.file, await change(doc), 0o600);
      this.cache = null;
    });
    this.writeChain = job;
    return job;
  }

  private load(): Loaded {
    let key: string;
    try {
      const s = statSync(this.file);
      key = `${s.mtimeMs}:${s.size}:${s.ino}`;
    } catch {
      this.reporter.found([]);
      return EMPTY;
    }
    if (this.cache?.key === key) return this.cache;
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (err) {
      const problems = [{ file: this.file, line: null, column: null, message: `cannot be read: ${(err as Error).message}` }];
      this.reporter.found(problems);
      return { ...EMPTY, problems };
    }
    const checked = checkText(text, SettingsSchema, this.file);
    const { value } = checked;
    const servers = declaredServers(value.mcpServers, 'user', this.file, text);
    const hooks = fileHooks(value, HOOK_SOURCES.loupeUser, this.file, text);
    const agents = declaredAgents(value.agents, 'user', this.file, text);
    const problems = [...checked.problems, ...servers.problems, ...hooks.problems, ...agents.problems];
    const trusted = Object.fromEntries(Object.entries(value.trusted_folders ?? {}).map(([root, t]) => [root, t.config_sha256]));
    const mcp = { approved: value.mcp_servers_approved ?? {}, disabled: value.mcp_servers_disabled ?? {} };
    this.cache = {
      key,
      rules: value.permissions ?? [],
      folders: value.folder_permissions ?? {},
      ...(value.sandbox ? { sandbox: value.sandbox } : {}),
      ...(value.limits ? { limits: value.limits } : {}),
      ...(value.subagents ? { subagents: value.subagents } : {}),
      trusted,
      llm: value.llm ?? {},
      mcpServers: servers.servers,
      mcp,
      agents: agents.agents,
      agentsApproved: value.agents_approved ?? {},
      hooks,
      hookState: { approved: value.hooks_approved ?? {}, disabled: value.hooks_disabled ?? {} },
      grants: value.skills_approved ?? {},
      ...(value.worktrees?.folder ? { worktreesFolder: value.worktrees.folder } : {}),
      worktreeSetup: { copy: value.worktrees?.copy ?? [], link: value.worktrees?.link ?? [] },
      worktreeSpare: value.worktrees?.spare ?? true,
      remote: value.remote ?? {},
      problems,
    };
    this.reporter.found(problems);
    return this.cache;
  }
}

/** `doc[key][root]` as a list of strings with `item` in it (`on`) or not. */
function addToList(doc: Record<string, unknown>, key: string, root: string, item: string, on: boolean): Record<string, unknown> {
  const all = objectAt(doc, key);
  const list = Array.isArray(all[root]) ? (all[root] as unknown[]).filter((d): d is string => typeof d === 'string' && d !== item) : [];
  return { ...doc, [key]: { ...all, [root]: on ? [...list, item] : list } };
}

/** `doc[key]` when it is an object, else a fresh one: a hand-edited file may hold anything there. */
function objectAt(doc: Record<string, unknown>, key: string): Record<string, unknown> {
  const v = doc[key];
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
