// The schema of `<workspace>/.loupe/config.json`. The file is read by one reader per workspace
// (ProjectConfig, which also keeps what the file grants off until the folder is trusted); every
// consumer (permissions, search excludes, test commands, edits.mode, limits) reads through it.
import { z } from 'zod';
import { PermissionRuleSchema } from '../permissions/types';
import { HooksSchema } from './hooksConfig';
import { McpServersSchema } from './mcpServers';
import { AgentsSchema } from './agentsConfig';
import { checkDocument, checkText, type Checked } from './validate';

export const CONFIG_REL = '.loupe/config.json';

export const DEFAULT_TEST_TIMEOUT_MS = 30_000;

/** A language server the project names: a command (argv) and, for a language Loupe does not know, its file extensions. */
export const LspServerSchema = z
  .object({
    command: z.array(z.string().min(1)).min(1),
    extensions: z.array(z.string().regex(/^\.[\w.+-]+$/, 'an extension such as ".lua"')).optional(),
  })
  .strict();
/** Background processes: how many may run at once, and how long one may go without output or a read. */
export const ProcessLimitsSchema = z.object({
  max_processes: z.number().int().positive().max(64).optional(),
  process_idle_ms: z.number().int().positive().optional(),
});

/**
 * Subagents (docs/architecture.md, "Subagents"): how deep they may nest, how many one session runs
 * at once, and each one's turns and tokens, and the tokens all of one session's children may spend.
 */
export const SubagentLimitsSchema = z.object({
  max_depth: z.number().int().min(1).max(3).optional(),
  max_parallel: z.number().int().min(1).max(16).optional(),
  max_turns: z.number().int().min(1).max(500).optional(),
  tokens_per_agent: z.number().int().positive().optional(),
  tokens_per_session: z.number().int().positive().optional(),
});

export const LoupeConfigSchema = z.object({
  permissions: z.array(PermissionRuleSchema).optional(),
  edits: z.object({ mode: z.enum(['review', 'ask']).optional() }).optional(),
  /** Test command per language, e.g. {"typescript": "npx vitest run"}. */
  tests: z.record(z.string(), z.string().min(1)).optional(),
  /** Commands run inside the OS sandbox where one works ("auto", the default) or never ("off"). */
  sandbox: z.enum(['auto', 'off']).optional(),
  languages: z.array(z.string().min(1)).optional(),
  /**
   * Language servers: false turns them all off; per language (typescript, python, go, rust, cpp or
   * another name) false turns one off and {"command": [...]} names the server to run, which applies
   * only in a trusted folder.
   */
  lsp: z.union([z.boolean(), z.record(z.string().min(1), z.union([z.literal(false), LspServerSchema]))]).optional(),
  search: z.object({ exclude: z.array(z.string().min(1)).optional() }).optional(),
  /** The repository's MCP servers (started only in a trusted folder, each after the person approved it). */
  mcpServers: McpServersSchema.optional(),
  /** The repository's other agents (ACP): offered only in a trusted folder, each run only after the person approved it. */
  agents: AgentsSchema.optional(),
  /** The repository's hooks, in Claude Code's shape (run only in a trusted folder, each after the person approved it). */
  hooks: HooksSchema.optional(),
  /** true: none of the repository's own hooks run (the person's still do). */
  disableAllHooks: z.boolean().optional(),
  subagents: SubagentLimitsSchema.optional(),
  limits: z
    .object({
      max_file_bytes: z.number().int().positive().optional(),
      test_timeout_ms: z.number().int().positive().max(600_000).optional(),
      /** How long a write waits for the language server's problems (default 3000). */
      diagnostics_wait_ms: z.number().int().positive().max(120_000).optional(),
      ...ProcessLimitsSchema.shape,
    })
    .optional(),
});

export type LoupeConfig = Partial<z.output<typeof LoupeConfigSchema>>;

/** The file's text checked key by key: what is valid applies, each problem has its line and column. */
export function parseLoupeConfig(text: string): Checked<LoupeConfig> {
  return checkText(text, LoupeConfigSchema, CONFIG_REL);
}

/** An already parsed document, checked the same way (no positions). */
export function checkLoupeConfig(doc: unknown): Checked<LoupeConfig> {
  return checkDocument(doc, LoupeConfigSchema, CONFIG_REL);
}
