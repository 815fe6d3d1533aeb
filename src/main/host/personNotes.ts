// What the person changed behind the model's back, said to the model at its next request: an undo
// or redo of requests, a rollback or a reverted hunk from the review pane, a switch to another
// version of the conversation. The model's history still says what it did; without a note it
// would go on believing files it deleted are gone and edits it made are in place.
// Read from the modification log (what was done, when, to which files), so a change made by
// another process on the folder (`loupe run --undo-last`) is told too.
import type { Fold, Folded } from '../services/modlog/fold';
import type { ModificationLog } from '../services/modlog/modificationLog';
import { PERSON_TOOL } from '../services/modlog/types';

/** The tools whose writes are the person's own actions in Loupe, not an agent's. */
const PERSON_TOOLS = new Set(['undo', 'redo', 'review']);
/** Files named in one note, past which it says how many more. */
const MAX_FILES = 12;

const fileState = (f: Folded): string => {
  const e = f.entry;
  if (e.after_sha256 === null) return 'deleted';
  if (e.before_sha256 === null) return 'restored';
  return 'changed back';
};

function filesText(steps: Folded[]): string {
  const byFile = new Map<string, string>();
  for (const s of steps) byFile.set(s.file, fileState(s));
  const list = [...byFile].sort(([a], [b]) => a.localeCompare(b)).map(([file, state]) => `${file} ${state}`);
  const more = list.length > MAX_FILES ? `, and ${list.length - MAX_FILES} more` : '';
  return list.slice(0, MAX_FILES).join(', ') + more;
}

/** Whether a person's action touched this session's work (its own modifications, or an undo of its requests). */
function concerns(fold: Fold, f: Folded, sessionId: string): boolean {
  if (f.entry.session_id === sessionId) return true;
  const target = f.entry.rolls_back ? fold.get(f.entry.rolls_back) : undefined;
  return target?.entry.session_id === sessionId;
}

/** The person's own saves from the viewer: one sentence for all of them, files named once. */
function editsNote(saves: Folded[]): string | null {
  const files = [...new Set(saves.map((f) => f.file))].sort((a, b) => a.localeCompare(b));
  if (!files.length) return null;
  const more = files.length > MAX_FILES ? `, and ${files.length - MAX_FILES} more` : '';
  const named = files.slice(0, MAX_FILES);
  const list = named.length === 1 ? named[0] : `${named.slice(0, -1).join(', ')}${more ? ', ' : ' and '}${named.at(-1)}${more}`;
  return `The person edited ${list} in the editor.`;
}

/**
 * One sentence per action of the person since `since` (an ISO time) that concerns `sessionId`,
 * oldest first: "The person undid request req-…: a.txt restored, b.txt deleted." The person's
 * own saves from the viewer concern every session (the files changed under all of them) and are
 * told from `editsSince` (the last request's start: a save while it ran may not have been seen).
 */
export async function personNotes(log: ModificationLog, sessionId: string, since: string, editsSince = since): Promise<string[]> {
  const fold = await log.index().sync();
  const actions = new Map<string, Folded[]>();
  const saves = fold.since(editsSince < since ? editsSince : since).filter((f) => f.entry.tool === PERSON_TOOL && f.entry.timestamp > editsSince && !f.rolledBackBy);
  for (const f of fold.since(since)) {
    if (!PERSON_TOOLS.has(f.entry.tool) || f.entry.operation !== 'rollback' || !concerns(fold, f, sessionId)) continue;
    const key = f.group ?? f.id;
    const list = actions.get(key) ?? [];
    list.push(f);
    actions.set(key, list);
  }
  const notes = [...actions.values()].map((steps) => {
    const e = steps[0].entry;
    const files = filesText(steps);
    if (e.group_kind === 'undo') return `The person undid request ${e.undo_of ?? e.correlation_id ?? ''}: ${files}.`;
    if (e.group_kind === 'redo') return `The person redid request ${e.undo_of ?? e.correlation_id ?? ''} (its undo was reversed): ${files}.`;
    if (e.hunk !== undefined) return `The person reverted one part (hunk ${e.hunk + 1}${e.hunk_count ? ` of ${e.hunk_count}` : ''}) of your change to ${e.file} in the review pane.`;
    if (e.group_kind) return `The person rolled back a group of changes in the review pane: ${files}.`;
    return `The person rolled back your change to ${e.file} in the review pane (${fileState(steps[0])}).`;
  });
  const edits = editsNote(saves);
  return edits ? [...notes, edits] : notes;
}

/** The notes as the text put before the person's next message. */
export function notesText(notes: string[]): string {
  return `[Loupe: since your last answer, in this folder — ${notes.join(' ')} The files are as they are on disk now, not as earlier messages show them: read a file again before relying on it.]`;
}
