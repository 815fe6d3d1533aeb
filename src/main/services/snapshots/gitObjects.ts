// git's object format, for the snapshots made in this process (treeModel.ts): a blob or a tree
// is named by the sha1 of its header and bytes and stored as a zlib stream under
// `objects/<2>/<38>` of the private folder, where git reads it like one it wrote itself.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { deflateSync, inflateSync } from 'node:zlib';
import { ensureDirInside, writeAtomicInside } from '../files/safeWrite';
import { readInside } from '../files/safeOpen';

export type ObjectType = 'blob' | 'tree';

export interface GitObject {
  type: ObjectType;
  oid: string;
  body: Buffer;
}

/** git's name of an object (sha1 of `<type> <size>\0` and the bytes). */
export function objectId(type: ObjectType, body: Buffer): string {
  return createHash('sha1').update(`${type} ${body.length}\0`).update(body).digest('hex');
}

export function gitObject(type: ObjectType, body: Buffer): GitObject {
  return { type, oid: objectId(type, body), body };
}

/** Loose objects of a git folder inside the workspace (the private snapshot folder). */
export class LooseObjects {
  private readonly known = new Set<string>();
  private readonly fanout = new Set<string>();

  constructor(
    private readonly root: string,
    private readonly objectsDir: string,
  ) {}

  private file(oid: string): string {
    return path.join(this.objectsDir, oid.slice(0, 2), oid.slice(2));
  }

  /** Stores each object not stored yet. The folder is scratch space: no fsync (see workTreeSnapshots.ts). */
  async write(objects: Iterable<GitObject>): Promise<void> {
    for (const o of objects) {
      if (this.known.has(o.oid)) continue;
      const file = this.file(o.oid);
      // Written again when git wrote it first: the same bytes under the same name, renamed over.
      if (!this.fanout.has(o.oid.slice(0, 2))) {
        ensureDirInside(this.root, path.dirname(file));
        this.fanout.add(o.oid.slice(0, 2));
      }
      const stream = deflateSync(Buffer.concat([Buffer.from(`${o.type} ${o.body.length}\0`), o.body]), { level: 1 });
      await writeAtomicInside(this.root, file, stream, { durable: false });
      this.known.add(o.oid);
    }
  }

  /** A blob stored here loose, checked against its name; null when it is not here (packed, or in the repository's folder). */
  async readBlob(oid: string): Promise<Buffer | null> {
    const raw = (await readInside(this.root, this.file(oid)).catch(() => null))?.buf;
    if (!raw) return null;
    let whole: Buffer;
    try {
      whole = inflateSync(raw);
    } catch {
      return null;
    }
    const nul = whole.indexOf(0);
    const head = whole.toString('latin1', 0, nul);
    const body = whole.subarray(nul + 1);
    if (head !== `blob ${body.length}` || objectId('blob', body) !== oid) return null;
    return body;
  }
}
