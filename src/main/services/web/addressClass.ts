// Addresses that reach the user's own machine, network or cloud metadata rather than the
// public internet. A fetch that resolves to one is flagged so the permission engine asks.
import dns from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { AbortedError } from '../../errors';
import { FetchFailedError } from './errors';

export type AddressClass = 'loopback' | 'private' | 'link-local' | 'metadata' | 'reserved';

const ranges: [AddressClass, string, number, 'ipv4' | 'ipv6'][] = [
  ['metadata', '169.254.169.254', 32, 'ipv4'],
  ['metadata', '100.100.100.200', 32, 'ipv4'],
  ['metadata', 'fd00:ec2::254', 128, 'ipv6'],
  ['loopback', '127.0.0.0', 8, 'ipv4'],
  ['loopback', '::1', 128, 'ipv6'],
  ['link-local', '169.254.0.0', 16, 'ipv4'],
  ['link-local', 'fe80::', 10, 'ipv6'],
  ['private', '10.0.0.0', 8, 'ipv4'],
  ['private', '172.16.0.0', 12, 'ipv4'],
  ['private', '192.168.0.0', 16, 'ipv4'],
  ['private', '100.64.0.0', 10, 'ipv4'],
  ['private', 'fc00::', 7, 'ipv6'],
  ['reserved', '0.0.0.0', 8, 'ipv4'],
  ['reserved', '192.0.0.0', 24, 'ipv4'],
  ['reserved', '198.18.0.0', 15, 'ipv4'],
  ['reserved', '224.0.0.0', 3, 'ipv4'],
  ['reserved', '::', 128, 'ipv6'],
  ['reserved', 'ff00::', 8, 'ipv6'],
];

const lists = new Map<AddressClass, BlockList>();
for (const [cls, net, prefix, type] of ranges) {
  let list = lists.get(cls);
  if (!list) lists.set(cls, (list = new BlockList()));
  list.addSubnet(net, prefix, type);
}

const METADATA_HOSTS = new Set(['metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal']);

/** IPv4 inside an IPv6 address (::ffff:a.b.c.d, NAT64 64:ff9b::/96), which connects to the IPv4. */
function embeddedV4(ip: string): string | null {
  const m = /^(?:::ffff:|64:ff9b::)(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(ip);
  if (!m) return null;
  if (m[1]) return m[1];
  const hi = parseInt(m[2], 16);
  const lo = parseInt(m[3], 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

export function classifyAddress(ip: string): AddressClass | null {
  const v4 = isIP(ip) === 6 ? embeddedV4(ip.toLowerCase()) : null;
  const addr = v4 ?? ip;
  const type = isIP(addr) === 4 ? 'ipv4' : 'ipv6';
  for (const [cls, list] of lists) if (list.check(addr, type)) return cls;
  return null;
}

export interface ResolvedHost {
  /** Every address the name resolved to, in resolver order. */
  addresses: { address: string; family: 4 | 6 }[];
  /** "10.0.0.7 (private)" when any of them is not on the public internet, else null. */
  privateAddress: string | null;
}

/** Name resolution, injected so a caller (and a test) controls when a name leaves the machine. */
export type LookupAll = (hostname: string) => Promise<{ address: string; family: number }[]>;

/** Looked up on the module at call time, so whoever observes the resolver sees every call. */
export const systemLookup: LookupAll = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

const bare = (hostname: string) => hostname.replace(/^\[|\]$/g, '');

/**
 * What the host name alone says, with no lookup: an IP literal's class, a metadata name, or
 * `localhost`. null when only resolving the name could tell.
 */
export function knownPrivateAddress(hostname: string): string | null {
  const host = bare(hostname).toLowerCase();
  if (isIP(host)) {
    const cls = classifyAddress(host);
    return cls ? `${host} (${cls})` : null;
  }
  if (METADATA_HOSTS.has(host)) return `${host} (metadata)`;
  if (host === 'localhost' || host.endsWith('.localhost')) return `${host} (loopback)`;
  return null;
}

export async function resolveHost(hostname: string, signal: AbortSignal, resolve: LookupAll = systemLookup): Promise<ResolvedHost> {
  const host = bare(hostname);
  let addresses: ResolvedHost['addresses'];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) as 4 | 6 }];
  else {
    const pending = resolve(host);
    // The listener goes once the lookup is over: a long-lived signal (a sandboxed command's
    // proxy resolves for its whole life) must not collect one per lookup.
    let fail = () => {};
    const aborted = new Promise<never>((_, reject) => {
      fail = () => reject(signal.reason ?? new AbortedError('The fetch'));
      if (signal.aborted) fail();
      signal.addEventListener('abort', fail, { once: true });
    });
    try {
      addresses = (await Promise.race([pending, aborted])).map((a) => ({ address: a.address, family: a.family as 4 | 6 }));
    } catch (err) {
      if (signal.aborted) throw signal.reason ?? err;
      throw new FetchFailedError(`Could not resolve ${host}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}. Check the host name.`);
    } finally {
      signal.removeEventListener('abort', fail);
    }
  }
  let privateAddress = knownPrivateAddress(host);
  for (const a of addresses) {
    const cls = classifyAddress(a.address);
    if (cls && !privateAddress) privateAddress = `${a.address} (${cls})`;
  }
  return { addresses, privateAddress };
}
