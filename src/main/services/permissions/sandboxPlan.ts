// Which questions the OS sandbox answers by construction (docs/architecture.md, permissions).
// A command inside it cannot write outside the workspace, into .git/config|hooks|info or
// .loupe, read credentials, or reach the network; an ask about exactly those needs no person.
import type { SandboxStatusView } from '../../../shared/contract';
import { matchCommand } from './patterns';
import type { ProjectRules } from './projectConfig';
import type { SandboxAvailability, SandboxGrant } from '../sandbox/types';
import { describeRule, type Decision, type SourcedRule } from './types';

export interface SandboxPlan {
  /** Commands run inside the sandbox ("auto" and one works here). */
  active: boolean;
  /** Why not, when not: shown in the decision and the settings. */
  why: string | null;
  grant: SandboxGrant;
}

const READ_ONLY_INSIDE = /^(\.git\/(config|hooks|info)(\/|$)|\.loupe(\/|$))/i;

export function planSandbox(mode: 'auto' | 'off', availability: SandboxAvailability, parts: string[], rules: SourcedRule[]): SandboxPlan {
  const grant = networkGrant(parts, rules);
  if (mode === 'off') return { active: false, why: '"sandbox" is "off" in the config, so commands run outside the sandbox', grant };
  if (!availability.available) return { active: false, why: `no sandbox here (${availability.reason ?? 'unknown'}), so commands run outside it`, grant };
  return { active: true, why: null, grant };
}

/**
 * The network opens only when every command of the line is matched by a network allow rule and
 * none by a network deny rule: the grant covers the whole process tree, so `npm install && curl x`
 * must not ride on a rule written for npm.
 */
export function networkGrant(parts: readonly string[], rules: readonly SourcedRule[]): SandboxGrant {
  const net = rules.filter((r) => r.kind === 'network');
  if (!parts.length || parts.some((p) => net.some((r) => r.action === 'deny' && matchCommand(r.pattern, p)))) return { network: false, networkRule: null };
  const allows = parts.map((p) => net.find((r) => r.action === 'allow' && matchCommand(r.pattern, p)));
  if (allows.some((r) => !r)) return { network: false, networkRule: null };
  return { network: true, networkRule: describeRule(allows[0]!) };
}

/** Every command of the line is allowed by a rule that says `"sandbox": false`. */
export function outsideByRule(decision: Decision): boolean {
  const commands = (decision.parts ?? [decision]).filter((p) => p.kind === 'bash' || p.kind === 'test');
  return decision.action === 'allow' && commands.length > 0 && commands.every((p) => p.rule?.action === 'allow' && p.rule.sandbox === false);
}

/**
 * Does the sandbox contain what this ask is about? Unmatched or unknown commands, paths outside
 * the workspace and writes to the read-only parts of .git and .loupe: yes. An ask rule a person
 * wrote, an edit rule inside the workspace, or the rest of .git (writable inside, so `rm -rf .git`
 * still loses history): no, those keep asking.
 */
export function containedBySandbox(decision: Decision): boolean {
  const asks = (decision.parts ?? [decision]).filter((p) => p.action === 'ask');
  return asks.length > 0 && asks.every(contained);
}

function contained(p: Decision): boolean {
  if (p.kind === 'bash' || p.kind === 'test') return p.rule === null;
  if (p.kind === 'external_directory') return p.rule === null;
  if (p.kind === 'edit') return p.rule === null && READ_ONLY_INSIDE.test(p.subject);
  return false;
}

export function describeGrant(grant: SandboxGrant): string {
  return `runs inside the sandbox: ${grant.network ? `network open (${grant.networkRule})` : 'no network'}, writes only in the workspace`;
}

/** What the settings show: the mode as it applies, whether it is active, and why not. */
export function sandboxStatus(project: ProjectRules, mode: 'auto' | 'off', availability: SandboxAvailability): SandboxStatusView {
  const ignored_off = project.ignored?.sandboxOff === true;
  const base = { mode, kind: availability.kind, install: availability.available ? null : availability.install, ignored_off };
  if (mode === 'off') return { ...base, active: false, reason: '"sandbox" is "off" (in .loupe/config.json or the user settings)' };
  if (!availability.available) return { ...base, active: false, reason: availability.reason ?? 'no sandbox works on this machine' };
  return { ...base, active: true, reason: null };
}
