import type { ModificationView } from '../../shared/contract';
import { splitPath } from './format';

const firstLine = (text: string | undefined) => (text ?? '').trim().split('\n')[0].trim();
const unique = (list: string[]) => [...new Set(list)];

/**
 * The message "commit approved" starts from: the approved modifications' reasons, oldest
 * first. One reason is the subject; several get a subject naming the files and a bullet each.
 * Rollbacks' own reasons ("roll back mod-…") mean nothing outside Loupe and are left out.
 */
export function commitMessageFor(approved: ModificationView[]): string {
  const oldest = [...approved].reverse();
  const files = unique(oldest.map((m) => m.file));
  const reasons = unique(oldest.filter((m) => m.operation !== 'rollback').map((m) => firstLine(m.reason)).filter(Boolean));
  if (reasons.length === 1) return reasons[0];
  const where = files.length === 0 ? 'files' : files.length === 1 ? files[0] : files.length <= 3 ? files.map((f) => splitPath(f).name).join(', ') : `${files.length} files`;
  const subject = `Update ${where}`;
  return reasons.length ? `${subject}\n\n${reasons.map((r) => `- ${r}`).join('\n')}` : subject;
}
