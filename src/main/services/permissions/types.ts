// The rule model (docs/architecture.md, permissions).
import { z } from 'zod';

export const PERMISSION_KINDS = ['read', 'edit', 'bash', 'webfetch', 'external_directory', 'test', 'network'] as const;
export type PermissionKind = (typeof PERMISSION_KINDS)[number];
export const PERMISSION_ACTIONS = ['allow', 'ask', 'deny'] as const;
export type PermissionAction = (typeof PERMISSION_ACTIONS)[number];

export interface PermissionRule {
  kind: PermissionKind;
  /** Paths and URLs: globs. bash and test: a command with `*` wildcards. */
  pattern: string;
  action: PermissionAction;
  /** bash and test allow rules: `false` runs the command outside the OS sandbox without asking. */
  sandbox?: boolean;
  /**
   * network rules: the hosts the command may reach through the sandbox's proxy (`*.github.com`
   * covers subdomains; no list: any public host). See hostRules.ts.
   */
  hosts?: string[];
}

/** A rule as written in `.loupe/config.json` or the user's settings: the one schema for both. */
export const PermissionRuleSchema = z.object({
  kind: z.enum(PERMISSION_KINDS),
  pattern: z.string().min(1),
  action: z.enum(PERMISSION_ACTIONS),
  sandbox: z.boolean().optional(),
  hosts: z.array(z.string().min(1)).optional(),
});

/** Where a rule came from, so a decision can say which line to edit. */
export type RuleSource = 'session' | 'project' | 'user';

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
}

export function describeRule(r: SourcedRule | PermissionRule): string {
  const where = 'origin' in r ? ` from ${r.origin}` : '';
  return `${r.action} ${r.kind} "${r.pattern}"${where}`;
}
