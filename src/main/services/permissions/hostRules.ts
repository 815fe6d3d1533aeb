// Which hosts a sandboxed command may reach through its proxy (docs/architecture.md, "The
// sandbox's network"). The network rules whose pattern matches a command of the line apply;
// their `hosts` name what it may reach (`registry.npmjs.org`, `*.github.com`; no list: any public
// host). Deny, then ask, then allow; a host no rule names asks. An address of this machine or a
// private network needs a rule that names the host exactly (a wildcard was written for the
// internet), else it asks again with the address shown.
import { matchCommand } from './patterns';
import { alwaysCommandRules } from './alwaysPatterns';
import { describeRule, type Decision, type PermissionRule, type SourcedRule } from './types';

export interface HostTarget {
  host: string;
  port: number;
  /** "127.0.0.1 (loopback)" when the host is or resolves to this machine or a private network. */
  privateAddress?: string | null;
}

export interface HostDecision extends Decision {
  /** An allow rule names this exact host. */
  named: boolean;
}

/** `*.github.com` covers `api.github.com`, not `github.com`; `*` covers any; otherwise exact (any case). */
export function hostMatches(pattern: string, host: string): boolean {
  const p = pattern.trim().toLowerCase().replace(/^\[|\]$/g, '');
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  if (p === '*') return true;
  if (p.startsWith('*.')) return h.endsWith(p.slice(1)) && h.length > p.length - 1;
  return p === h;
}

const namesExactly = (r: PermissionRule, host: string) => (r.hosts ?? []).some((h) => !h.includes('*') && hostMatches(h, host));

export function decideHost(parts: readonly string[], rules: readonly SourcedRule[], t: HostTarget): HostDecision {
  const net = rules.filter((r) => r.kind === 'network' && parts.some((p) => matchCommand(r.pattern, p)));
  const covers = (r: SourcedRule) => !r.hosts || r.hosts.some((h) => hostMatches(h, t.host));
  const subject = `${t.host}:${t.port}`;
  // "Always" adds the host to what the command's own network rule allows.
  const grant = net.find((r) => r.action === 'allow');
  const base = grant ? { kind: 'network' as const, pattern: grant.pattern, action: 'allow' as const } : alwaysCommandRules('network', parts[0] ?? '')[0];
  const always: PermissionRule[] = base ? [{ ...base, hosts: [t.host] }] : [];
  const decision = (action: Decision['action'], rule: SourcedRule | null, reason: string, named = false): HostDecision => ({
    action,
    kind: 'network',
    subject,
    rule,
    reason,
    always: action === 'allow' ? [] : always,
    named,
  });
  const deny = net.find((r) => r.action === 'deny' && covers(r));
  if (deny) return decision('deny', deny, `${subject}: matches the rule ${describeRule(deny)}`);
  const ask = net.find((r) => r.action === 'ask' && covers(r));
  if (ask) return decision('ask', ask, `${subject}: matches the rule ${describeRule(ask)}`);
  if (t.privateAddress) {
    const naming = net.find((r) => r.action === 'allow' && namesExactly(r, t.host));
    if (naming) return decision('allow', naming, `${subject}: named by the rule ${describeRule(naming)}`, true);
    return decision('ask', null, `${t.host} is ${t.privateAddress.startsWith(t.host) ? '' : `at ${t.privateAddress}, `}this machine or a private network, and no network rule names "${t.host}" exactly`);
  }
  const allow = net.find((r) => r.action === 'allow' && covers(r));
  if (allow) return decision('allow', allow, `${subject}: matches the rule ${describeRule(allow)}`, namesExactly(allow, t.host));
  return decision('ask', null, `${subject}: no network rule for this command names ${t.host}`);
}
