// Content-addressed copies of every before/after state, so a rollback never depends on git.
// The store sits in .loupe/objects/, which a cloned repository may have shipped: blobs are
// written and read only through real folders inside the workspace, never through a link.
import path from 'node:path';
import { UnsafePathError } from '../files/errors';
import { sha256 } from '../files/hash';
import { lstatInside, readInside } from '../files/safeOpen';
import { writeAtomicInside } from '../files/safeWrite';

export class BlobStore {
  private readonly known = new Set<string>();

  /** `root`: the workspace the store must stay inside (default: the store's parent folder). */
  constructor(
    readonly dir: string,
    private readonly root = path.dirname(dir),
  ) {}

  async put(data: Buffer, sha = sha256(data)): Promise<string> {
    if (this.known.has(sha)) return sha;
    const file = path.join(this.dir, sha);
    // Blobs are written atomically, so a regular file under the name is complete. Anything
    // else there (a planted link) is replaced by the rename, never written through.
    if (!lstatInside(this.root, file)?.isFile()) await writeAtomicInside(this.root, file, data, { mode: 0o644, mkdirs: true });
    this.known.add(sha);
    return sha;
  }

  async get(sha: string): Promise<Buffer> {
    if (!/^[0-9a-f]{64}$/.test(sha)) throw new Error(`not a blob id: ${sha}`);
    const file = path.join(this.dir, sha);
    const read = await readInside(this.root, file);
    if (!read) throw Object.assign(new Error(`blob ${sha} is missing from ${this.dir}`), { code: 'ENOENT' });
    // A blob that is not what its name says would hand back someone else's bytes.
    if (sha256(read.buf) !== sha) throw new UnsafePathError(path.relative(this.root, file), 'does not hold the content its name promises');
    return read.buf;
  }
}
