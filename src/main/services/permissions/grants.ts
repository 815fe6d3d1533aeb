// What a skill or a command in use lets through for one request: its `allowed-tools` as allow
// rules (docs/architecture.md, "Skills and commands"). A grant lives as long as the request it
// was given in, and is never written anywhere: the next request starts with none. It sits among
// the rules like any allow rule, so deny and ask rules still win and the OS sandbox still holds
// the commands it lets run.
import type { PermissionRule, SourcedRule } from './types';

export class RequestGrants {
  private readonly given: { label: string; rules: SourcedRule[] }[] = [];

  /** `label`: whose grant, for the decision's reason (`skill "pdf" (~/.claude/skills/pdf)`). */
  add(label: string, rules: PermissionRule[]): void {
    if (!rules.length || this.given.some((g) => g.label === label)) return;
    this.given.push({ label, rules: rules.map((r) => ({ kind: r.kind, pattern: r.pattern, action: 'allow', source: 'skill', origin: `the allowed-tools of ${label}, while it is in use` })) });
  }

  /** The allow rules in force now, in the order they were given. */
  rules(): SourcedRule[] {
    return this.given.flatMap((g) => g.rules);
  }

  /** Whose grants are in force. */
  labels(): string[] {
    return this.given.map((g) => g.label);
  }
}
