// The project's configuration: `<workspace>/.loupe/config.json` (permission rules and every other
// key) and `.mcp.json` (the repository's MCP servers, as Claude Code writes them). A malformed file
// is reported with its line and column and ignored, never a crash; an "allow always" answer is
// appended to config.json atomically, every other key kept as the user wrote it. What the files
// grant (allow rules, test commands, language and MCP servers) applies only while the folder is trusted with
// these exact bytes (trust.ts). They are read and written only through real folders (a clone may
// ship .loupe/ as a link). Loupe never writes `.mcp.json`.
import path from 'node:path';
import { CONFIG_REL, LoupeConfigSchema, type LoupeConfig } from '../config/loupeConfig';
import { MCP_JSON_REL, McpJsonSchema, declaredServers, type McpServerDecl } from '../config/mcpServers';
import { CLAUDE_LOCAL_REL, CLAUDE_SETTINGS_REL, projectHookFiles } from '../config/projectHooks';
import type { HookDecl } from '../config/hooksConfig';
import { declaredAgents, type AgentDecl } from '../config/agentsConfig';
import { ProblemReporter, checkDocument, checkText, parseJsonWithPosition, problemAt, type ConfigProblem } from '../config/validate';
import { lstatInside, readInside } from '../files/safeOpen';
import { writeAtomicInside } from '../files/safeWrite';
import { ConfigMalformedError } from './errors';
import { grantCount, grantsOf, trustDigest, type ProjectFiles, type TrustStore } from './trust';
import { PermissionRuleSchema, type PermissionRule, type SourcedRule } from './types';

export { CONFIG_REL, MCP_JSON_REL, type ConfigProblem };
export { lineColumn, parseJsonWithPosition } from '../config/validate';

export type EditsMode = 'review' | 'ask';

export interface ProjectRules {
  rules: SourcedRule[];
  problems: ConfigProblem[];
  /** Every valid key of the file as it applies now (no allow rules or tests while untrusted). */
  config: LoupeConfig;
  /** `edits.mode`: `ask` turns every edit into an approval card; absent means review. */
  editsMode?: EditsMode;
  /** The configured test command per language; absent while the folder is untrusted. */
  tests?: Record<string, string>;
  /** The repository's MCP servers (`.loupe/config.json`'s, then `.mcp.json`'s); absent while untrusted. */
  mcpServers?: McpServerDecl[];
  /** The repository's other agents (`.loupe/config.json`'s `agents`); absent while untrusted. */
  agents?: AgentDecl[];
  /** The repository's hooks (`.claude/settings.json`, `.claude/settings.local.json`, `.loupe/config.json`); absent while untrusted. */
  hooks?: HookDecl[];
  /** One of those files says `"disableAllHooks": true`: none of the repository's hooks run. */
  hooksDisabled?: boolean;
  /** False while the files' grants are ignored for want of trust (absent: true). */
  trusted?: boolean;
  /**
   * The person trusted this folder with the files as they are now (false without a file). What the
   * repository brings itself, such as its own node_modules/typescript, is used only then.
   */
  trustedByPerson?: boolean;
  /** What untrusted files would have granted: allow rules, test commands, language server and MCP servers. */
  ignored?: { rules: SourcedRule[]; tests: Record<string, string>; mcpServers?: McpServerDecl[]; hooks?: HookDecl[]; agents?: AgentDecl[]; sandboxOff?: true; servers?: string[] };
}

const NO_CONFIG: ProjectRules = { rules: [], problems: [], config: {} };

export interface ProjectConfigOptions {
  /** Told each problem of the file once (a bad or unknown key: where, and what is wrong). */
  report?: (problem: ConfigProblem) => void;
}

/**
 * The one reader of `.loupe/config.json` for a workspace. Re-reads when the file's stat
 * changes, so an edit in an editor applies to the next decision, search or test run.
 */
export class ProjectConfig {
  private cached: { key: string; digest: string; value: ProjectRules } | null = null;
  private writing: Promise<void> = Promise.resolve();
  private readonly reporter: ProblemReporter;

  /** `root` is a realpath; `trust` says which config bytes the person trusted for it. */
  constructor(
    private readonly root: string,
    private readonly trust: TrustStore,
    opts: ProjectConfigOptions = {},
  ) {
    this.reporter = new ProblemReporter(opts.report ?? (() => undefined));
  }

  get file(): string {
    return path.join(this.root, CONFIG_REL);
  }

  /** Re-read when a file changed, so a rule the user just edited applies at once. */
  async load(): Promise<ProjectRules> {
    const parsed = await this.parsed();
    if (!parsed) return NO_CONFIG;
    return this.trust.trustedDigest(this.root) === parsed.digest ? { ...parsed.value, trustedByPerson: true } : withoutGrants(parsed.value);
  }

  /** A file's stat as a cache key ('' when absent); throws when it cannot be looked at. */
  private statKey(rel: string): string {
    // Through real folders only, and never blocking on a FIFO: .loupe/ may have come with a clone.
    const s = lstatInside(this.root, path.join(this.root, rel));
    return s ? `${s.mtimeMs}:${s.size}:${s.ino}` : '';
  }

  private async parsed(): Promise<{ digest: string; value: ProjectRules } | null> {
    let key: string;
    try {
      key = `${this.statKey(CONFIG_REL)}|${this.statKey(MCP_JSON_REL)}|${this.statKey(CLAUDE_SETTINGS_REL)}|${this.statKey(CLAUDE_LOCAL_REL)}`;
    } catch (err) {
      this.reporter.found([{ file: CONFIG_REL, line: null, column: null, message: `cannot be read: ${(err as Error).message}` }]);
      return null;
    }
    if (key === '|||') return this.forget();
    if (this.cached?.key === key) return this.cached;
    // One read each: the bytes hashed for trust are the bytes parsed. Never blocks on a FIFO.
    const files = await this.readFiles();
    const value = parseProjectFiles(files.config?.toString('utf8') ?? null, files.mcp?.toString('utf8') ?? null, files.claude ?? null, files.claudeLocal ?? null);
    this.cached = { key, digest: trustDigest(files) ?? '', value };
    this.reporter.found(value.problems);
    return this.cached;
  }

  private async readFiles(): Promise<ProjectFiles> {
    const read = (rel: string) =>
      readInside(this.root, path.join(this.root, rel)).then(
        (r) => r?.buf ?? null,
        () => null,
      );
    const [config, mcp, claude, claudeLocal] = await Promise.all([read(CONFIG_REL), read(MCP_JSON_REL), read(CLAUDE_SETTINGS_REL), read(CLAUDE_LOCAL_REL)]);
    return { config, mcp, claude, claudeLocal };
  }

  private forget(): null {
    this.cached = null;
    this.reporter.found([]);
    return null;
  }

  /** Appends rules (skipping ones already there); refuses to touch a file it cannot parse. */
  addRules(add: PermissionRule[]): Promise<void> {
    return this.update((doc) => {
      const list = Array.isArray(doc.permissions) ? [...(doc.permissions as unknown[])] : [];
      const has = (r: PermissionRule) =>
        list.some((x) => {
          const p = PermissionRuleSchema.safeParse(x);
          const sameHosts = JSON.stringify(p.success ? (p.data.hosts ?? null) : null) === JSON.stringify(r.hosts ?? null);
          return p.success && p.data.kind === r.kind && p.data.pattern === r.pattern && p.data.action === r.action && (p.data.sandbox === false) === (r.sandbox === false) && sameHosts;
        });
      for (const r of add) {
        if (!has(r)) list.push({ kind: r.kind, pattern: r.pattern, action: r.action, ...(r.sandbox === false ? { sandbox: false } : {}), ...(r.hosts ? { hosts: r.hosts } : {}) });
      }
      return { ...doc, permissions: list };
    });
  }

  /** Sets `edits.mode`, keeping every other key as the user wrote it. */
  setEditsMode(mode: EditsMode): Promise<void> {
    return this.update((doc) => {
      const edits = doc.edits && typeof doc.edits === 'object' && !Array.isArray(doc.edits) ? doc.edits : {};
      return { ...doc, edits: { ...edits, mode } };
    });
  }

  /**
   * Read, change, write atomically, one change at a time; a file that does not parse is left
   * alone. A change Loupe makes for the person (their "allow always", their edits mode) keeps
   * the trust the file had: trusted before, trusted after; untrusted stays untrusted.
   */
  private update(change: (doc: Record<string, unknown>) => Record<string, unknown>): Promise<void> {
    const run = this.writing.then(async () => {
      let doc: Record<string, unknown> = {};
      let mode = 0o644;
      const { mcp, claude, claudeLocal } = await this.readFiles();
      const mcpDoc = mcp ? (safeJson(mcp.toString('utf8')) ?? undefined) : undefined;
      const read = await readInside(this.root, this.file);
      const raw = read?.buf ?? null;
      // Files that granted nothing held only the person's own choices.
      const wasTrusted = this.trust.trustedDigest(this.root) === trustDigest({ config: raw, mcp, claude, claudeLocal }) || grantCount(grantsOf(raw ? safeJson(raw.toString('utf8')) : {}, mcpDoc, { claude, claudeLocal })) === 0;
      if (read) {
        const text = read.buf.toString('utf8');
        mode = read.st.mode & 0o777;
        const parsed = parseJsonWithPosition(text, CONFIG_REL);
        if ('problem' in parsed) throw new ConfigMalformedError(parsed.problem);
        if (!parsed.value || typeof parsed.value !== 'object' || Array.isArray(parsed.value)) {
          throw new ConfigMalformedError({ file: CONFIG_REL, line: 1, column: 1, message: 'the file must hold a JSON object' });
        }
        doc = parsed.value as Record<string, unknown>;
      }
      const bytes = Buffer.from(JSON.stringify(change(doc), null, 2) + '\n');
      await writeAtomicInside(this.root, this.file, bytes, { mode, mkdirs: true });
      this.cached = null;
      if (wasTrusted) await this.trust.trust(this.root, trustDigest({ config: bytes, mcp, claude, claudeLocal })!);
    });
    this.writing = run.catch(() => {});
    return run;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** The config with its grants set aside: deny and ask rules and edits.mode still apply. */
function withoutGrants(value: ProjectRules): ProjectRules {
  const allow = value.rules.filter((r) => r.action === 'allow');
  const { tests, mcpServers, hooks, agents, ...rest } = value;
  // "sandbox": "off" lifts a protection, so a file nobody trusted cannot turn the sandbox off.
  const { tests: _tests, sandbox, lsp, mcpServers: _servers, hooks: _hooks, agents: _agents, ...config } = value.config;
  // Turning servers off only narrows; a server command is a program to run.
  const servers = typeof lsp === 'object' ? Object.keys(lsp).filter((k) => lsp[k] !== false) : [];
  const keptLsp = typeof lsp === 'object' ? Object.fromEntries(Object.entries(lsp).filter(([, v]) => v === false)) : lsp;
  const kept = {
    ...config,
    ...(sandbox === 'auto' ? { sandbox } : {}),
    ...(keptLsp !== undefined ? { lsp: keptLsp } : {}),
    ...(config.permissions ? { permissions: config.permissions.filter((r) => r.action !== 'allow') } : {}),
  };
  if (!allow.length && !tests && !mcpServers?.length && !hooks?.length && !agents?.length && sandbox !== 'off' && !servers.length) return { ...rest, config: kept };
  const ignored = { rules: allow, tests: tests ?? {}, ...(mcpServers?.length ? { mcpServers } : {}), ...(hooks?.length ? { hooks } : {}), ...(agents?.length ? { agents } : {}), ...(sandbox === 'off' ? { sandboxOff: true as const } : {}), ...(servers.length ? { servers } : {}) };
  return { ...rest, config: kept, rules: value.rules.filter((r) => r.action !== 'allow'), trusted: false, ignored };
}

/**
 * Both project files as rules and settings. `.loupe/config.json`'s servers come first and win a
 * name both files use (the other is reported); a file that is absent is null.
 */
export function parseProjectFiles(configText: string | null, mcpText: string | null, claude: Buffer | null = null, claudeLocal: Buffer | null = null): ProjectRules {
  const base = configText === null ? { rules: [], problems: [], config: {} } : parseProjectRules(configText);
  const own = declaredServers(base.config.mcpServers, 'project', CONFIG_REL, configText ?? undefined);
  const problems = [...base.problems, ...own.problems];
  const servers = [...own.servers];
  if (mcpText !== null) {
    const checked = checkText(mcpText, McpJsonSchema, MCP_JSON_REL);
    const fromMcpJson = declaredServers(checked.value.mcpServers, 'project', MCP_JSON_REL, mcpText);
    problems.push(...checked.problems, ...fromMcpJson.problems);
    for (const d of fromMcpJson.servers) {
      if (servers.some((s) => s.name === d.name)) problems.push(problemAt(MCP_JSON_REL, mcpText, ['mcpServers', d.name], `${CONFIG_REL} also names a server "${d.name}"; that one is used`));
      else servers.push(d);
    }
  }
  const hooks = projectHookFiles(base.config, claude, claudeLocal, configText ?? undefined);
  const agents = declaredAgents(base.config.agents, 'project', CONFIG_REL, configText ?? undefined);
  problems.push(...hooks.problems, ...agents.problems);
  return { ...base, problems, ...(servers.length ? { mcpServers: servers } : {}), ...(agents.agents.length ? { agents: agents.agents } : {}), ...(hooks.hooks.length ? { hooks: hooks.hooks } : {}), ...(hooks.disableAll ? { hooksDisabled: true } : {}) };
}

/** The file's text as rules and settings: every valid key applies, every other one is a problem. */
export function parseProjectRules(text: string): ProjectRules {
  const parsed = parseJsonWithPosition(text, CONFIG_REL);
  if ('problem' in parsed) return { rules: [], problems: [parsed.problem], config: {} };
  const { value: config, problems } = checkDocument(parsed.value, LoupeConfigSchema, CONFIG_REL, text);
  const raw = parsed.value as { edits?: { mode?: unknown }; permissions?: unknown } | null;
  // An unreadable mode errs on the careful side: asking before an edit loses nothing.
  const editsMode: EditsMode | undefined = config.edits?.mode ?? (raw?.edits?.mode === undefined ? undefined : 'ask');
  // Each rule names its place in the file, counting the ones left out.
  const places = (Array.isArray(raw?.permissions) ? raw.permissions : []).flatMap((r, i) => (PermissionRuleSchema.safeParse(r).success ? [i] : []));
  const rules = (config.permissions ?? []).map((r, i): SourcedRule => ({ ...r, source: 'project', origin: `${CONFIG_REL} permissions[${places[i]}]` }));
  const tests = config.tests && Object.keys(config.tests).length ? config.tests : undefined;
  return { rules, problems, config, ...(editsMode ? { editsMode } : {}), ...(tests ? { tests } : {}) };
}
