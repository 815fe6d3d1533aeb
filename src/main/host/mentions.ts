// The chat's `@` picker: files and folders of the index, ranked as quick open ranks them
// (fuzzyFiles.ts), and only those a read would allow without asking, as the search tools show
// them: a file a read rule denies or asks about is never offered, so it cannot be attached
// by picking it (attachments.ts refuses it by the same rules when named directly).
import type { MentionItem } from '../../shared/contract';
import { rankPaths } from '../services/workspace/fuzzyFiles';
import type { WorkspaceServices } from '../workspace/compose';

export const MENTION_LIMIT = 50;

export async function findMentions(services: WorkspaceServices, query: string, limit = 30): Promise<MentionItem[]> {
  const n = Math.min(Math.max(1, Math.floor(limit) || 30), MENTION_LIMIT);
  const { actionFor } = await services.permissions.readRules();
  const visible = (p: string) => actionFor(p) === 'allow';
  const files = rankPaths(services.index.searchable(), query, n, visible).map((h) => ({ ...h, kind: 'file' as const }));
  // Folders only once the query names something: an empty query lists files.
  // A folder that matches as well as a file comes after it: `@src/ma` means src/main.ts before src/main/.
  const dirs = query.trim() ? rankPaths(services.index.dirPaths(), query, Math.ceil(n / 3), visible).map((h) => ({ path: h.path, score: h.score - 500, kind: 'dir' as const })) : [];
  return [...files, ...dirs]
    .sort((a, b) => b.score - a.score || a.path.localeCompare(b.path))
    .slice(0, n)
    .map(({ kind, path }) => ({ kind, path }));
}
