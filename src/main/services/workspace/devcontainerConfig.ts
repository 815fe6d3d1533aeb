// Where a folder's dev container definition is, as the Dev Containers spec looks for it:
// `.devcontainer/devcontainer.json`, else `.devcontainer.json` at the top.
import { lstat } from 'node:fs/promises';
import path from 'node:path';

export const DEVCONTAINER_FILES = ['.devcontainer/devcontainer.json', '.devcontainer.json'];

/** The definition's path, relative to the folder, or null. Links are not followed (a clone's link could point anywhere). */
export async function devcontainerFile(root: string): Promise<string | null> {
  for (const rel of DEVCONTAINER_FILES) {
    const st = await lstat(path.join(root, rel)).catch(() => null);
    if (st?.isFile()) return rel;
  }
  return null;
}

export async function hasDevcontainer(root: string): Promise<boolean> {
  return (await devcontainerFile(root)) !== null;
}
