// The rule model (docs/architecture.md, permissions).
import { z } from 'zod';
import { HOST_ENTRY_HELP, parseHostEntry } from './hostEntry';

export const PERMISSION_KINDS = ['read', 'edit', 'bash', 'webfetch', 'external_directory', 'test', 'network', 'mcp'] as const;
export type PermissionKind = (typeof PERMISSION_KINDS)[number];

/**
 * What an approval card asks about: a permission kind, or one of the questions that are not rules:
 * starting a repository's MCP server (`mcp-server`), a server's own question (`elicitation`),
 * running a repository's hook (`hook`), a repository's skill or command pre-approving tools while
 * it is in use (`skill`), running a repository's other agent (`agent`).
 */
export type ApprovalKind = PermissionKind | 'mcp-server' | 'elicitation' | 'hook' | 'skill' | 'agent';
export const PERMISSION_ACTIONS = ['allow', 'ask', 'deny'] as const;
export type PermissionAction = (typeof PERMISSION_ACTIONS)[number];
/** `act`: the rules decide; `plan`: only what reads is allowed, whatever the rules say. */
export type PermissionMode = 'act' | 'plan';

export interface PermissionRule {
  kind: PermissionKind;
  /** Paths and URLs: globs. bash and test: a command with `*` wildcards. mcp: `server/tool` with `*` wildcards. */
  pattern: string;
  action: PermissionAction;
  /** bash and test allow rules: `false` runs the command outside the OS sandbox without asking. */
  sandbox?: boolean;
  /**
   * network rules: the hosts the command may reach through the sandbox's proxy (`*.github.com`
   * covers subdomains; `host:port` that port only; no list: any public host), and the ports of
   * this machine forwarded into it (`127.0.0.1:5432`, `localhost:6379`). See hostRules.ts.
   */
  hosts?: string[];
  /** mcp rules: apply only to tools the server marks read-only (`readOnlyHint`). */
  read_only?: boolean;
}

/** A rule as written in `.loupe/config.json` or the user's settings: the one schema for both. */
export const PermissionRuleSchema = z.object({
  kind: z.enum(PERMISSION_KINDS),
  pattern: z.string().min(1),
  action: z.enum(PERMISSION_ACTIONS),
  sandbox: z.boolean().optional(),
  hosts: z.array(z.string().min(1).refine((h) => parseHostEntry(h) !== null, { error: (i) => `${JSON.stringify(i.input)} is not ${HOST_ENTRY_HELP}` })).optional(),
  read_only: z.boolean().optional(),
});

/**
 * Where a rule came from, so a decision can say which line to edit. `skill`: the `allowed-tools`
 * of a skill or command in use during this request (never saved anywhere).
 */
export type RuleSource = 'session' | 'project' | 'user' | 'skill';

export interface SourcedRule extends PermissionRule {
  source: RuleSource;
  /** e.g. `.loupe/config.json permissions[2]`, `user settings permissions[0]`, `session`. */
  origin: string;
}

export interface Decision {
  action: PermissionAction;
  kind: PermissionKind;
  /** What was judged: the command, the path, the URL. */
  subject: string;
  /** The rule that decided; null when no rule matched and the built-in default applied. */
  rule: SourcedRule | null;
  /** One sentence a user can read on an approval card: why this decision. */
  reason: string;
  /** The rules an "allow always" answer would add. */
  always: PermissionRule[];
  /** For compound commands: the decision for each command and path inside. */
  parts?: Decision[];
  /** No rule matched and the kind's built-in default decided (a person's hook may lift such an ask). */
  byDefault?: boolean;
  /** Why it cannot be taken back (a destructive command, a write outside the workspace): the card says so. */
  risk?: string[];
  /** A destructive command: the sandbox's containment alone does not let it pass without a card. */
  destructive?: boolean;
}

/**
 * What the PreToolUse hooks said about one tool call, for the gate to combine with the rules
 * (docs/architecture.md, "Hooks"). `ask`: a card even where the rules allow (a hook that failed
 * asks too). `allow` from the person's own hook lifts what the built-in defaults would ask, as
 * Claude Code documents; deny and ask rules still decide. A repository's `allow` never loosens.
 */
export interface HookVerdict {
  decision: 'allow' | 'ask';
  owner: 'user' | 'project';
  /** The hook as a person reads it: `PreToolUse hook "python3 check.py" (.claude/settings.json)`. */
  hook: string;
  reason: string;
}

export function describeRule(r: SourcedRule | PermissionRule): string {
  const where = 'origin' in r ? ` from ${r.origin}` : '';
  return `${r.action} ${r.kind} "${r.pattern}"${where}`;
}
