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

/**
 * A port of this machine's loopback that a rule names, forwarded into the sandbox's own loopback:
 * the sandbox listens on `listen`:`port`, and each connection reaches `port` on this machine at
 * the first of `connect` that answers (`localhost` stands for 127.0.0.1 and ::1; a literal only
 * for itself). Nothing else of this machine is reached through it.
 */
export interface HostPort {
  /** As the rule spells it (`localhost`, `127.0.0.1`, `::1`): the guard is asked about this name. */
  host: string;
  port: number;
  /** The loopback address it listens on inside the sandbox. */
  listen: string;
  /** The loopback addresses of this machine it connects to, in order; `listen` first. */
  connect: string[];
}

/** Decides, per host, for one sandboxed command; may wait for a person (an approval card). */
export interface NetworkGuard {
  decide(target: HostQuery, signal: AbortSignal): Promise<HostDecision>;
  /** The ports of this machine its rules forward into the sandbox (none when absent). */
  hostPorts?(): Promise<HostPort[]>;
}

/** What one command's network did: hosts reached through the proxy and hosts refused. */
export interface NetworkActivity {
  reached: string[];
  refused: { host: string; reason: string }[];
}
