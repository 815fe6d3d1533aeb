// Which hosts a sandboxed command may reach through its proxy, and which ports of this machine
// are forwarded into its loopback (docs/architecture.md, "The sandbox's network"). The network
// rules whose pattern matches a command of the line apply; their `hosts` name what it may reach
// (`registry.npmjs.org`, `*.github.com`, `host:port` for one port only; no list: any public host).
// Deny, then ask, then allow; a host no rule names asks. An address of this machine or a private
// network needs a rule that names the host exactly (a wildcard was written for the internet),
// else it asks again with the address shown. A port of this machine's loopback is reached only
// when an entry names it with its port (`127.0.0.1:5432`, `localhost:6379`, `[::1]:8080`).
import { isIP } from 'node:net';
import { hostPort, parseHostEntry, type HostEntry } from './hostEntry';
import { classifyAddress } from '../web/addressClass';
import { matchCommand } from './patterns';
import { alwaysCommandRules } from './alwaysPatterns';
import { describeRule, type Decision, type PermissionRule, type SourcedRule } from './types';
import type { HostPort } from '../sandbox/net/types';

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

const bare = (host: string) => host.toLowerCase().replace(/^\[|\]$/g, '');

/** `*.github.com` covers `api.github.com`, not `github.com`; `*` covers any; otherwise exact (any case). A port, when written, must be the one. */
export function hostMatches(pattern: string, host: string, port?: number): boolean {
  const e = parseHostEntry(pattern);
  if (!e) return false;
  if (e.port !== null && e.port !== port) return false;
  const p = bare(e.host);
  const h = bare(host);
  if (p === '*') return true;
  if (p.startsWith('*.')) return h.endsWith(p.slice(1)) && h.length > p.length - 1;
  return p === h;
}

const namesExactly = (hosts: readonly string[] | undefined, host: string, port: number) => (hosts ?? []).some((h) => !h.includes('*') && hostMatches(h, host, port));

/**
 * The addresses of this machine's loopback a host stands for: `localhost` is both 127.0.0.1 and
 * ::1; a loopback literal is itself (an IPv4-mapped one its IPv4). null for anything else.
 */
export function loopbackAddresses(host: string): string[] | null {
  const h = bare(host);
  if (h === 'localhost') return ['127.0.0.1', '::1'];
  const kind = isIP(h);
  if (!kind || classifyAddress(h) !== 'loopback') return null;
  if (kind === 4) return [h];
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h);
  return [mapped ? mapped[1]! : '::1'];
}

/** One forward per loopback address an entry names with a port; each connects first where it listens. */
function forwardsOf(host: string, port: number): HostPort[] {
  const addresses = loopbackAddresses(host) ?? [];
  return addresses.map((listen) => ({ host: bare(host), port, listen, connect: [listen, ...addresses.filter((a) => a !== listen)] }));
}

/** Entries of `hosts` that name a port of this machine's loopback. */
function loopbackEntries(hosts: readonly string[] | undefined): HostEntry[] {
  return (hosts ?? []).flatMap((h) => {
    const e = parseHostEntry(h);
    return e && e.port !== null && loopbackAddresses(e.host) ? [e as HostEntry & { port: number }] : [];
  });
}

/** The forwards `entries` give, less what `denied` refuses (by the name or by the address); one per address and port. */
function forwardsFrom(entries: HostEntry[], denied: (host: string, port: number) => boolean): HostPort[] {
  const out = new Map<string, HostPort>();
  for (const e of entries) {
    for (const f of forwardsOf(e.host, e.port!)) {
      if (denied(f.host, f.port) || denied(f.listen, f.port)) continue;
      const key = hostPort(f.listen, f.port);
      if (!out.has(key)) out.set(key, f);
    }
  }
  return [...out.values()];
}

/**
 * The ports of this machine a command's network rules forward into its sandbox: every entry of a
 * matching allow rule that names a loopback host with its port, less what a matching deny rule
 * covers. Only with the network grant (every part matched by an allow rule, none by a deny).
 */
export function commandHostPorts(parts: readonly string[], rules: readonly SourcedRule[], granted: boolean): HostPort[] {
  if (!granted) return [];
  const net = rules.filter((r) => r.kind === 'network' && parts.some((p) => matchCommand(r.pattern, p)));
  const denies = net.filter((r) => r.action === 'deny');
  const entries = net.filter((r) => r.action !== 'deny').flatMap((r) => loopbackEntries(r.hosts));
  return forwardsFrom(entries, (host, port) => denies.some((r) => !r.hosts || r.hosts.some((h) => hostMatches(h, host, port))));
}

/** The same for a sandboxed MCP server: the loopback ports its `network.hosts` names, less network deny rules for its command line. */
export function serverHostPorts(commandLine: string, hosts: readonly string[], rules: readonly SourcedRule[]): HostPort[] {
  const denies = rules.filter((r) => r.kind === 'network' && r.action === 'deny' && matchCommand(r.pattern, commandLine));
  return forwardsFrom(loopbackEntries(hosts), (host, port) => denies.some((r) => !r.hosts || r.hosts.some((h) => hostMatches(h, host, port))));
}

/**
 * Why a command could not reach `host:port` of this machine, and the rules that would let it:
 * the port named on the command's network rule (a new rule for a part that has none, since the
 * grant needs every part). A deny rule that covers it is named instead.
 */
export function hostPortAdvice(parts: readonly string[], rules: readonly SourcedRule[], host: string, port: number): { reason: string; rules: PermissionRule[]; deniedBy: SourcedRule | null } {
  const entry = hostPort(host, port);
  const net = rules.filter((r) => r.kind === 'network' && parts.some((p) => matchCommand(r.pattern, p)));
  const deny = net.find((r) => r.action === 'deny' && (!r.hosts || r.hosts.some((h) => hostMatches(h, host, port))));
  if (deny) return { reason: `this machine's ${entry} is refused by the rule ${describeRule(deny)}`, rules: [], deniedBy: deny };
  const add = new Map<string, PermissionRule>();
  const without: string[] = [];
  let open = true;
  for (const p of parts) {
    if (net.some((r) => r.action === 'allow' && matchCommand(r.pattern, p))) continue;
    without.push(p);
    const base = alwaysCommandRules('network', p)[0];
    if (!base) open = false;
    else add.set(base.pattern, { ...base, hosts: [entry] });
  }
  const first = net.find((r) => r.action === 'allow');
  if (!add.size && first) add.set(first.pattern, { kind: 'network', pattern: first.pattern, action: 'allow', hosts: [entry] });
  // Forwarded were the grant there: a rule does name it.
  const named = commandHostPorts(parts, rules, true).some((f) => f.port === port && (loopbackAddresses(host) ?? []).includes(f.listen));
  const why =
    named && without.length
      ? `a network rule names this machine's ${entry}, but the network opens only when every command of the line has one, and ${without.map((w) => JSON.stringify(w)).join(', ')} ${without.length === 1 ? 'has' : 'have'} none`
      : `this machine's ${entry} is outside the sandbox, and no network rule for this command names it`;
  return { reason: why, rules: open ? [...add.values()] : [], deniedBy: null };
}

/**
 * A sandboxed MCP server's host: its configuration's `network.hosts` allow (an address of this
 * machine or a private network only when named exactly), network deny rules for its command line
 * still deny, anything else asks. There is no rule to save: the hosts live in its configuration.
 */
export function decideServerHost(server: string, commandLine: string, hosts: readonly string[], rules: readonly SourcedRule[], t: HostTarget, listed = `mcpServers.${server}.network.hosts`): HostDecision {
  const subject = hostPort(t.host, t.port);
  const decision = (action: Decision['action'], rule: SourcedRule | null, reason: string, named = false): HostDecision => ({ action, kind: 'network', subject, rule, reason, always: [], named });
  const deny = rules.find((r) => r.kind === 'network' && r.action === 'deny' && matchCommand(r.pattern, commandLine) && (!r.hosts || r.hosts.some((h) => hostMatches(h, t.host, t.port))));
  if (deny) return decision('deny', deny, `${subject}: matches the rule ${describeRule(deny)}`);
  if (t.privateAddress) {
    if (namesExactly(hosts, t.host, t.port)) return decision('allow', null, `${subject}: named in ${listed}`, true);
    return decision('ask', null, `${t.host} is ${t.privateAddress.startsWith(t.host) ? '' : `at ${t.privateAddress}, `}this machine or a private network, and ${listed} does not name "${subject}"`);
  }
  if (hosts.some((h) => hostMatches(h, t.host, t.port))) return decision('allow', null, `${subject}: listed in ${listed}`, namesExactly(hosts, t.host, t.port));
  return decision('ask', null, `${subject}: not listed in ${listed}`);
}

export function decideHost(parts: readonly string[], rules: readonly SourcedRule[], t: HostTarget): HostDecision {
  const net = rules.filter((r) => r.kind === 'network' && parts.some((p) => matchCommand(r.pattern, p)));
  const covers = (r: SourcedRule) => !r.hosts || r.hosts.some((h) => hostMatches(h, t.host, t.port));
  const subject = hostPort(t.host, t.port);
  // "Always" adds the host to what the command's own network rule allows; this machine or a
  // private network only with the port, since a rule for those reaches exactly what it names.
  const grant = net.find((r) => r.action === 'allow');
  const base = grant ? { kind: 'network' as const, pattern: grant.pattern, action: 'allow' as const } : alwaysCommandRules('network', parts[0] ?? '')[0];
  const always: PermissionRule[] = base ? [{ ...base, hosts: [t.privateAddress ? subject : t.host] }] : [];
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
    const naming = net.find((r) => r.action === 'allow' && namesExactly(r.hosts, t.host, t.port));
    if (naming) return decision('allow', naming, `${subject}: named by the rule ${describeRule(naming)}`, true);
    return decision('ask', null, `${t.host} is ${t.privateAddress.startsWith(t.host) ? '' : `at ${t.privateAddress}, `}this machine or a private network, and no network rule names "${subject}" or "${t.host}" exactly`);
  }
  const allow = net.find((r) => r.action === 'allow' && covers(r));
  if (allow) return decision('allow', allow, `${subject}: matches the rule ${describeRule(allow)}`, namesExactly(allow.hosts, t.host, t.port));
  return decision('ask', null, `${subject}: no network rule for this command names ${t.host}`);
}
