// What the sandbox's network layer asks of whoever decides (the permission gate), and what it
// reports back (docs/architecture.md, "The sandbox's network").

export interface HostDecision {
  allowed: boolean;
  /**
   * A rule (or the person) named this exact host: it may resolve to this machine or a private
   * network. A wildcard or an open rule never reaches those addresses.
   */
  named: boolean;
  /** Why, in a sentence: shown to the model when refused. */
  reason: string;
}

export interface HostQuery {
  host: string;
  port: number;
  /**
   * Set when the host is, or resolved to, this machine or a private network ("127.0.0.1
   * (loopback)"): asked again with the address unless a rule names the host exactly.
   */
  privateAddress?: string | null;
}

/** Decides, per host, for one sandboxed command; may wait for a person (an approval card). */
export interface NetworkGuard {
  decide(target: HostQuery, signal: AbortSignal): Promise<HostDecision>;
}

/** What one command's network did: hosts reached through the proxy and hosts refused. */
export interface NetworkActivity {
  reached: string[];
  refused: { host: string; reason: string }[];
}
