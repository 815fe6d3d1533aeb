import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { InvalidArgumentError } from '../errors';

/** The folder a CLI command works on, as a realpath; refuses a missing path or a file. */
export async function workspaceRoot(cwd: string | undefined): Promise<string> {
  const requested = path.resolve(cwd ?? process.cwd());
  let root: string;
  try {
    root = await realpath(requested);
  } catch {
    throw new InvalidArgumentError(`Folder not found: ${requested}`);
  }
  if (!(await stat(root)).isDirectory()) throw new InvalidArgumentError(`Not a folder: ${requested}`);
  return root;
}
