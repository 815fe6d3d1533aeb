// What bash and run_tests share about the OS sandbox: the policy for a granted command, and
// the result when the sandbox is what made it fail.
import { expandDenyGlobs } from '../../services/sandbox/denyPaths';
import type { SandboxPolicy } from '../../services/sandbox/bwrapPolicy';
import type { SandboxGrant } from '../../services/sandbox/types';
import type { NetworkActivity } from '../../services/sandbox/net/types';
import type { ToolContext } from './types';

export const SANDBOX_ARG_DESCRIPTION =
  'Leave unset. false = run outside the OS sandbox: only after this command failed with SANDBOX_BLOCKED and it really needs to write or connect there; the user is asked to approve.';

/**
 * The policy for a granted command. With a network grant its proxy asks the gate about each
 * host, as `tool`, in the name of this command.
 */
export async function sandboxPolicy(ctx: ToolContext, grant: SandboxGrant | null, command: string, tool: string): Promise<SandboxPolicy | undefined> {
  if (!grant) return undefined;
  const { rules } = await ctx.permissions.project();
  const denyRead = rules.filter((r) => r.kind === 'read' && r.action === 'deny').map((r) => r.pattern);
  const network = grant.network ? { guard: ctx.permissions.networkGuard(command, tool), ...(ctx.lookup ? { lookup: ctx.lookup } : {}) } : undefined;
  const explainHostPort = (host: string, port: number) => ctx.permissions.explainHostPort(command, host, port);
  return { root: ctx.root, grant, hide: expandDenyGlobs(ctx.root, denyRead), explainHostPort, ...(network ? { network } : {}) };
}

/** A line for the model about the hosts the command's proxy let through or refused. */
export function describeNetwork(activity: NetworkActivity | null): string {
  if (!activity || (!activity.reached.length && !activity.refused.length)) return '';
  const lines = [];
  if (activity.reached.length) lines.push(`Network: reached ${activity.reached.join(', ')}`);
  for (const r of activity.refused) lines.push(`Network: refused ${r.host}: ${r.reason}`);
  return `\n${lines.join('\n')}`;
}

export function sandboxBlockedError(tool: 'bash' | 'run_tests', blocked: string): { code: 'SANDBOX_BLOCKED'; message: string } {
  return {
    code: 'SANDBOX_BLOCKED',
    message: `blocked by the sandbox: ${blocked}. Inside the sandbox only the workspace and $TMPDIR (a private temp folder) are writable, credentials are hidden and the network is off unless a network rule allows it. To run it outside the sandbox, call ${tool} again with sandbox: false (the user will be asked).`,
  };
}
