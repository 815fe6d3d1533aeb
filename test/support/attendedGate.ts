// A permission gate on a workspace's real rules whose "person" answers every card the same
// way, recording each card's summary, so a test can see what was asked and in which order.
import { ApprovalQueue } from '../../src/main/services/permissions/approvalQueue';
import { PermissionGate } from '../../src/main/services/permissions/permissionGate';
import { ProjectConfig } from '../../src/main/services/permissions/projectConfig';
import { PermissionEngine } from '../../src/main/services/permissions/ruleEngine';

export function attendedGate(root: string, answer: 'once' | 'deny', asked: string[], prefix = ''): PermissionGate {
  const queue = new ApprovalQueue('wait');
  queue.setResponder(async (req) => {
    asked.push(`${prefix}${req.summary}`);
    return answer === 'deny' ? { answer: 'deny', message: 'no' } : { answer: 'once' };
  });
  return new PermissionGate(new PermissionEngine({ root, project: new ProjectConfig(root) }), queue, { persist: async () => undefined });
}
