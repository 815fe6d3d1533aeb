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

/** Approved and not yet in HEAD: what "Commit approved" would commit. */
export const awaitsCommit = (m: Pick<ModificationView, 'status' | 'committed'>) => m.status === 'approved' && !m.committed;

/** The row's status word: "Committed" once HEAD holds an approved change. */
export const statusLabel = (m: Pick<ModificationView, 'status' | 'committed' | 'operation'>) =>
  m.status === 'approved' && m.committed ? 'Committed' : m.operation === 'rollback' && m.status === 'rolled_back' ? 'Undone' : STATUS_LABEL[m.status];

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

/** "1/3 hunks reverted" (or "1 hunk reverted" when an older log did not record the count); null when none. */
export function revertedHunksLabel(m: Pick<ModificationView, 'reverted_hunks' | 'hunk_count' | 'status'>): { label: string; title: string } | null {
  const hunks = m.reverted_hunks ?? [];
  // Rolled back whole, its hunks no longer say anything.
  if (!hunks.length || m.status === 'rolled_back') return null;
  const total = m.hunk_count;
  const noun = (total ?? hunks.length) === 1 ? 'hunk' : 'hunks';
  const label = total ? `${hunks.length}/${total} ${noun} reverted` : `${hunks.length} ${noun} reverted`;
  const which = hunks.map((h) => h + 1).join(', ');
  const title = `${hunks.length === 1 ? 'Hunk' : 'Hunks'} ${which}${total ? ` of ${total}` : ''} reverted on disk by a hunk rollback; roll that rollback back to apply ${hunks.length === 1 ? 'it' : 'them'} again`;
  return { label, title };
}

/** The tool of the person's own saves from the viewer. */
export const PERSON_TOOL = 'person';

/** A request id as a chip shows it: the agent's `req-20260131-9f2c…` without the date every row shares. */
export const requestLabel = (id: string) => id.replace(/^req-\d{8}-/, 'req ');

const LEGACY_ROLLBACK = /^roll back (\S+)(?: \(hunk (\d+)\))?$/;

/**
 * The row's second line: the reason, in words for the person. Rollbacks written by older
 * versions said "roll back mod-… (hunk 0)"; they read as newer ones do, hunks counted from 1.
 * Without a reason the line says who made the change, never a placeholder.
 */
export function reasonLine(m: Pick<ModificationView, 'reason' | 'rolls_back' | 'tool'>): string {
  const legacy = m.reason ? LEGACY_ROLLBACK.exec(m.reason.trim()) : null;
  if (legacy) return legacy[2] === undefined ? `Rolled back ${legacy[1]}` : `Reverted hunk ${Number(legacy[2]) + 1} in ${legacy[1]}`;
  if (m.reason?.trim()) return m.reason;
  if (m.rolls_back) return `Rolled back ${m.rolls_back}`;
  return `By ${m.tool}`;
}

/** The chip of a row that belongs to a group. */
export const GROUP_LABEL: Record<NonNullable<ModificationView['group_kind']>, string> = {
  command: '$ command',
  undo: '↶ undo',
  redo: '↷ redo',
  rollback: '⟲ group',
  worktree: '↳ worktree',
};

export const GROUP_TITLE: Record<NonNullable<ModificationView['group_kind']>, string> = {
  command: 'Written by one command, group',
  undo: 'Part of the undo',
  redo: 'Part of the redo',
  rollback: 'Part of the group rollback',
  worktree: 'Applied from a worktree, group',
};

/**
 * What a modification introduced, as the timeline and the diff's header say it: "+2 errors",
 * "+1 warning" when it added no error; "unchecked" when the server could not say in time (as the
 * tool's result said; its answer, when it comes later, replaces this); null when it added neither.
 */
export function diagnosticsLabel(m: Pick<ModificationView, 'diagnostics'>): { label: string; title: string; tone: 'error' | 'warning' | 'unknown' } | null {
  const d = m.diagnostics;
  if (!d) return null;
  if (!d.available) return { label: 'unchecked', tone: 'unknown', title: `${d.server} could not say in time what this change introduced (${d.reason ?? 'unavailable'}). Its answer shows here when it comes.` };
  const count = d.errors || d.warnings;
  if (!count) return null;
  const word = d.errors ? 'error' : 'warning';
  const lines = d.introduced.filter((p) => p.severity === word).slice(0, 5).map((p) => `${p.file ? `${p.file}:` : 'line '}${p.line}: ${p.message.split('\n')[0]}`);
  const more = count > lines.length ? [`… and ${count - lines.length} more`] : [];
  return { label: `+${count} ${word}${count === 1 ? '' : 's'}`, title: [`This change introduced, per ${d.server}:`, ...lines, ...more].join('\n'), tone: word };
}

/** A request as a person knows it: “its prompt's first line”, else its short id. */
export const requestText = (id: string, name: string | undefined) => (name ? `“${name}”` : requestLabel(id));

/** The request an undo or a redo is about: an undo names it; a redo reverses an undo that does. */
export function undoneRequest(m: Pick<ModificationView, 'undo_of' | 'rolls_back'>, byId: (id: string) => Pick<ModificationView, 'undo_of'> | undefined): string | undefined {
  return m.undo_of ?? (m.rolls_back ? byId(m.rolls_back)?.undo_of : undefined);
}

/** An undo or a redo as one step of the timeline: "Undid “clean up”", "Redid “clean up”". */
export function stepLine(kind: 'undo' | 'redo', request: string | undefined, name: string | undefined): string {
  const verb = kind === 'undo' ? 'Undid' : 'Redid';
  return request ? `${verb} ${requestText(request, name)}` : `${verb} a request`;
}

const OPERATION_WORDS: Record<string, string> = {
  create: 'Created',
  overwrite: 'Rewrote',
  edit: 'Edited',
  replace: 'Replaced',
  insert_before: 'Inserted',
  insert_after: 'Inserted',
  delete: 'Deleted',
  delete_file: 'Deleted the file',
};

/**
 * The modification in words, for the diff's header: who changed what, for which request —
 * "Edited lines 2–3 by edit_file for “spell the total out”", "Your edit, saved in the editor",
 * "Undo of “clean up”".
 */
export function modificationWords(
  m: Pick<ModificationView, 'tool' | 'operation' | 'lines_affected' | 'correlation_id' | 'command' | 'group_kind' | 'undo_of' | 'rolls_back' | 'reason'>,
  undone: string | undefined,
  nameOf: (id: string) => string | undefined,
): string {
  const r = m.lines_affected;
  const lines = r && m.operation !== 'create' && m.operation !== 'delete_file' ? (r[0] === r[1] ? ` line ${r[0]}` : ` lines ${r[0]}–${r[1]}`) : '';
  const forRequest = m.correlation_id ? ` for ${requestText(m.correlation_id, nameOf(m.correlation_id))}` : '';
  if (m.tool === 'person') return `Your edit${lines ? `,${lines},` : ''} saved in the editor`;
  if (m.group_kind === 'undo' || m.group_kind === 'redo') return `${m.group_kind === 'undo' ? 'Undo' : 'Redo'} of ${undone ? requestText(undone, nameOf(undone)) : 'a request'}`;
  if (m.operation === 'rollback') return reasonLine({ reason: m.reason, rolls_back: m.rolls_back, tool: m.tool });
  if (m.command) return `Written by $ ${m.command}${forRequest}`;
  // A hosted agent's tool is `acp:<agent>`: the agent's name says who.
  const by = m.tool.startsWith('acp:') ? m.tool.slice(4) : m.tool;
  return `${OPERATION_WORDS[m.operation] ?? m.operation}${lines} by ${by}${forRequest}`;
}
