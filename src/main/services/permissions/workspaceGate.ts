// The gate a tool uses when its host supplied none (`loupe mcp` today, tests): the project's
// .loupe/config.json rules, the built-in defaults, and nobody to ask, so an ask is denied
// with the rule that would allow it. One per workspace, so session rules are shared.
import { ApprovalQueue } from './approvalQueue';
import { PermissionGate } from './permissionGate';
import { ProjectConfig } from './projectConfig';
import { PermissionEngine } from './ruleEngine';
import { defaultConfigDir } from '../settings/configDir';
import { UserSettings } from '../settings/userSettings';

/** What a tool context may carry; hosts that can ask a person put their gate here. */
export interface PermissionHooks {
  root: string;
  permissions?: PermissionGate;
}

const unattended = new Map<string, PermissionGate>();

export function unattendedGate(root: string): PermissionGate {
  let gate = unattended.get(root);
  if (!gate) {
    const user = new UserSettings(defaultConfigDir());
    const project = new ProjectConfig(root, user);
    gate = new PermissionGate(new PermissionEngine({ root, project, userRules: user.permissions }), new ApprovalQueue('deny'), {
      persist: (rules) => project.addRules(rules),
    });
    unattended.set(root, gate);
  }
  return gate;
}

export function gateFor(ctx: PermissionHooks): PermissionGate {
  return ctx.permissions ?? unattendedGate(ctx.root);
}
