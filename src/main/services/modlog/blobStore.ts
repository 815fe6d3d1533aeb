// Content-addressed copies of every before/after state, so a rollback never depends on git.
import { access, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { sha256 } from '../files/hash';
import { writeFileAtomic } from './atomicWrite';

export class BlobStore {
  private readonly known = new Set<string>();

  constructor(readonly dir: string) {}

  async put(data: Buffer, sha = sha256(data)): Promise<string> {
    if (this.known.has(sha)) return sha;
    const file = path.join(this.dir, sha);
    try {
      // Blobs are written atomically, so one that exists is complete.
      await access(file);
    } catch {
      await mkdir(this.dir, { recursive: true });
      await writeFileAtomic(file, data, 0o644);
    }
    this.known.add(sha);
    return sha;
  }

  get(sha: string): Promise<Buffer> {
    if (!/^[0-9a-f]{64}$/.test(sha)) throw new Error(`not a blob id: ${sha}`);
    return readFile(path.join(this.dir, sha));
  }
}
