import type { ModificationStatus, ModificationView } from '../../shared/contract';

const pad = (n: number) => String(n).padStart(2, '0');
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** 10:15:23 today, "Jan 31 10:15" on other days: the timeline's time column. */
export function shortTime(iso: string, now = new Date()): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const hm = `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  if (d.toDateString() === now.toDateString()) return `${hm}:${pad(d.getSeconds())}`;
  const day = `${MONTHS[d.getMonth()]} ${d.getDate()}`;
  return d.getFullYear() === now.getFullYear() ? `${day} ${hm}` : `${day} ${d.getFullYear()}`;
}

export const STATUS_LABEL: Record<ModificationStatus, string> = {
  applied: 'Applied',
  approved: 'Approved',
  rolled_back: 'Rolled back',
};

export const OPERATION_LABEL: Record<string, string> = {
  create: 'create',
  overwrite: 'overwrite',
  edit: 'edit',
  replace: 'replace',
  insert_before: 'insert',
  insert_after: 'insert',
  delete: 'delete lines',
  delete_file: 'delete file',
  rollback: 'rollback',
};

/** "L45–68" or "L12": the lines a modification touched. */
export function linesLabel(m: Pick<ModificationView, 'lines_affected'>): string {
  const r = m.lines_affected;
  if (!r) return '';
  return r[0] === r[1] ? `L${r[0]}` : `L${r[0]}–${r[1]}`;
}

export function splitPath(path: string): { name: string; dir: string } {
  const i = path.lastIndexOf('/');
  return i < 0 ? { name: path, dir: '' } : { name: path.slice(i + 1), dir: path.slice(0, i) };
}

/** The test badge's tone: nothing ran, all passed, or some failed. */
export function testTone(m: ModificationView): 'none' | 'pass' | 'fail' {
  const t = m.test_results;
  if (!t) return 'none';
  return t.failed > 0 ? 'fail' : 'pass';
}
