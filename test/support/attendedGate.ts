// A permission gate on a workspace's real rules whose "person" answers every card the same
// way, recording each card's summary, so a test can see what was asked and in which order.
import { ApprovalQueue } from '../../src/main/services/permissions/approvalQueue';
import { PermissionGate } from '../../src/main/services/permissions/permissionGate';
import { ProjectConfig } from '../../src/main/services/permissions/projectConfig';
import { PermissionEngine } from '../../src/main/services/permissions/ruleEngine';
import { defaultConfigDir } from '../../src/main/services/settings/configDir';
import { UserSettings } from '../../src/main/services/settings/userSettings';

export function attendedGate(root: string, answer: 'once' | 'deny', asked: string[], prefix = ''): PermissionGate {
  const queue = new ApprovalQueue('wait');
  queue.setResponder(async (req) => {
    asked.push(`${prefix}${req.summary}`);
    return answer === 'deny' ? { answer: 'deny', message: 'no' } : { answer: 'once' };
  });
  // The user's settings where the harness put them (LOUPE_HOME), so trust given there counts.
  const project = new ProjectConfig(root, new UserSettings(defaultConfigDir()));
  return new PermissionGate(new PermissionEngine({ root, project }), queue, { persist: async () => undefined });
}
