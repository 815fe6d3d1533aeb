import path from 'node:path';
import { readJson, writeJsonAtomic } from './atomicJson';

const MAX_RECENT = 12;

/** Most-recently-opened folders, newest first, shared by every transport. */
export class RecentFolders {
  private readonly file: string;
  constructor(configDir: string) {
    this.file = path.join(configDir, 'recent.json');
  }

  async list(): Promise<string[]> {
    const data = await readJson<{ folders?: unknown }>(this.file, {});
    return Array.isArray(data.folders) ? data.folders.filter((f): f is string => typeof f === 'string') : [];
  }

  async add(folder: string): Promise<string[]> {
    const folders = [folder, ...(await this.list()).filter((f) => f !== folder)].slice(0, MAX_RECENT);
    await writeJsonAtomic(this.file, { folders });
    return folders;
  }
}
