// Remote folders opened before, newest first: Open Remote Folder's second list.
import path from 'node:path';
import { readJson, writeJsonAtomic } from '../services/settings/atomicJson';
import type { RemoteRecentView } from '../../shared/contract';

const MAX_RECENT = 12;

export class RecentRemotes {
  private readonly file: string;

  constructor(configDir: string) {
    this.file = path.join(configDir, 'recent-remotes.json');
  }

  async list(): Promise<RemoteRecentView[]> {
    const data = await readJson<{ remotes?: unknown }>(this.file, {});
    if (!Array.isArray(data.remotes)) return [];
    return data.remotes.filter((r): r is RemoteRecentView => typeof r?.target === 'string' && typeof r?.opened_at === 'string');
  }

  async add(target: string): Promise<void> {
    const remotes = [{ target, opened_at: new Date().toISOString() }, ...(await this.list()).filter((r) => r.target !== target)].slice(0, MAX_RECENT);
    await writeJsonAtomic(this.file, { remotes });
  }
}
