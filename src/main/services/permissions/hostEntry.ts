// One entry of a network rule's `hosts` (and of an MCP server's `network.hosts`): a host, and
// when written, the one port it names (docs/architecture.md, "The sandbox's network").
import { isIP } from 'node:net';

/** One `hosts` entry: a host (a name, `*.domain`, `*`, an IP) and, when written, its one port. */
export interface HostEntry {
  host: string;
  port: number | null;
}

/**
 * `example.com`, `example.com:8443`, `*.github.com`, `127.0.0.1:5432`, `[::1]:6379`, a bare IPv6
 * address (`::1`). null when the part after a colon is not a port (1-65535).
 */
export function parseHostEntry(entry: string): HostEntry | null {
  const s = entry.trim();
  const bracketed = /^\[([^\]]+)\](?::([^:]*))?$/.exec(s);
  if (bracketed) return isIP(bracketed[1]!) === 6 ? withPort(bracketed[1]!, bracketed[2]) : null;
  const colons = s.split(':').length - 1;
  if (colons > 1) return isIP(s) === 6 ? { host: s.toLowerCase(), port: null } : null;
  if (colons === 1) {
    const [host, port] = s.split(':') as [string, string];
    return withPort(host, port);
  }
  return s ? { host: s.toLowerCase(), port: null } : null;
}

function withPort(host: string, port: string | undefined): HostEntry | null {
  if (!host) return null;
  if (port === undefined) return { host: host.toLowerCase(), port: null };
  if (!/^[1-9]\d{0,4}$/.test(port) || Number(port) > 65535) return null;
  return { host: host.toLowerCase(), port: Number(port) };
}

/** A host and port as a rule's `hosts` entry or a card writes it: IPv6 in brackets. */
export function hostPort(host: string, port: number): string {
  const h = host.replace(/^\[|\]$/g, '');
  return `${isIP(h) === 6 ? `[${h}]` : h}:${port}`;
}

/** The config schema's message for an entry that is not a host or `host:port`. */
export const HOST_ENTRY_HELP = 'a host or host:port (registry.npmjs.org, *.github.com, 127.0.0.1:5432, localhost:6379, [::1]:8080)';
