import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../modlog/atomicWrite';

/** JSON through the same temp-file + fsync + rename path as every other write. */
export async function writeJsonAtomic(file: string, value: unknown, mode = 0o600): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFileAtomic(file, Buffer.from(JSON.stringify(value, null, 2) + '\n'), mode);
}

export async function readJson<T>(file: string, fallback: T): Promise<T> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as T;
  } catch {
    return fallback;
  }
}
