// What one session (one chat, one MCP connection) has read, so writes can insist the model
// saw the content it is about to change. Keyed by realpath; the hash is of the raw bytes.

export interface ReadRecord {
  hash: string;
  at: number;
}

export class FileSession {
  private readonly reads = new Map<string, ReadRecord>();

  constructor(readonly id: string) {}

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
