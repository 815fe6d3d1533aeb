// What one session (one chat, one MCP connection) has read, so writes can insist the model
// saw the content it is about to change. Keyed by realpath; the hash is of the raw bytes.

export interface ReadRecord {
  hash: string;
  at: number;
}

/**
 * Whom a session's writes are recorded as: the session whose request they serve and, for a
 * subagent, the child that made them (docs/architecture.md, "Subagents").
 */
export interface Writer {
  sessionId: string;
  agentId?: string;
}

export class FileSession {
  private readonly reads = new Map<string, ReadRecord>();
  readonly writer: Writer;

  /** `writer`: absent for a session writing for itself; a child's names its parent's request session and itself. */
  constructor(
    readonly id: string,
    writer?: Writer,
  ) {
    this.writer = writer ?? { sessionId: id };
  }

  recordRead(abs: string, hash: string): void {
    this.reads.set(abs, { hash, at: Date.now() });
  }

  lastRead(abs: string): ReadRecord | undefined {
    return this.reads.get(abs);
  }

  /** After our own write the new content counts as seen: the model wrote it. */
  recordWrite(abs: string, hash: string | null): void {
    if (hash === null) this.reads.delete(abs);
    else this.recordRead(abs, hash);
  }
}
