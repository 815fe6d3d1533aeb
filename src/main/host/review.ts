// The review side of one workspace (the `modlog.*` channels): the folded log for
// the timeline, diffs, rollback, per-hunk revert, approvals and "commit approved". The log
// file is shared with every other Loupe process on the folder (`loupe mcp`, `loupe run`), so
// the workspace watcher tells us when it grew and the index reads just the appended tail.
import { lstatInside, readInside } from '../services/files/safeOpen';
import type { DiffSides, HostEvents, ModificationQuery, Params } from '../../shared/contract';
import { InvalidArgumentError } from '../errors';
import type { ModificationLog } from '../services/modlog/modificationLog';
import { approveModification, commitApproved, committedIds, type CommittedCache } from '../services/modlog/facts';
import { findModification, rollbackModification, sidesOf } from '../services/modlog/rollback';
import { isGroup, rollbackGroup } from '../services/modlog/groupRollback';
import { languageOf } from '../services/workspace/language';
import { resolveInWorkspace } from '../services/workspace/pathGuard';
import type { LanguageServers } from '../services/lsp/languageServers';
import { foreseeFiles, groupLanded } from '../agent/edit/foresee';

export const LOG_REL = '.loupe/modifications.jsonl';
type Emit = <E extends keyof HostEvents>(event: E, payload: HostEvents[E]) => void;

const text = (b: Buffer | null) => (b === null ? null : b.toString('utf8'));
const isBinary = (b: Buffer | null) => !!b && b.subarray(0, 8000).includes(0);
/** One rollback's line, for problems that come after the bound. */
const landedOne = (out: { file: string; rollback_id: string }) => new Map([[out.file, out.rollback_id]]);

export class ReviewService {
  readonly log: ModificationLog;
  /** Review actions are recorded under one session per open workspace. */
  private readonly sessionId = `review-${Date.now().toString(36)}`;
  /** The log's size when modlog.changed last went out. */
  private seenSize = -1;
  private readonly committed: CommittedCache = new Map();

  readonly root: string;

  /** `log`: the workspace's one log, shared with the agent, so both writers take one lock. */
  constructor(
    log: ModificationLog,
    private readonly emit: Emit,
    /** What a rollback from here introduces, recorded on its line like an agent's write. */
    private readonly lsp?: LanguageServers,
  ) {
    this.log = log;
    this.root = log.root;
  }

  /** Called with every batch of changed paths; emits modlog.changed when the log grew. */
  async onPaths(paths: string[]): Promise<void> {
    // Not only the log's own event: when another process creates .loupe/ and the log in one
    // go, inotify may report the folder before its watch exists and never the file in it. Any
    // sign of life in .loupe/ (the folder, the append lock coming and going) prompts a look.
    if (!paths.some((p) => p === '.loupe' || p.startsWith('.loupe/'))) return;
    let size = 0;
    try {
      size = lstatInside(this.root, this.log.logFile)?.size ?? 0;
    } catch {
      /* a link where .loupe/ should be: writes refuse and say why; nothing to show here */
    }
    if (size === this.seenSize && !paths.includes(LOG_REL)) return;
    this.seenSize = size;
    // Reviews and test results add lines but no modification: they change the view all the same.
    const fold = await this.log.index().sync();
    this.emit('modlog.changed', { count: fold.size });
  }

  async list(q: ModificationQuery = {}) {
    const fold = await this.log.index().sync();
    const result = fold.query(q ?? {});
    if (!result.modifications.some((m) => m.status === 'approved')) return result;
    const inHead = await committedIds(this.log, this.committed).catch(() => new Set<string>());
    for (const m of result.modifications) if (inHead.has(m.modification_id)) m.committed = true;
    return result;
  }

  async diff(id: string): Promise<DiffSides> {
    const { target } = await findModification(this.log, id);
    const { before, after } = await sidesOf(this.log, target.entry);
    const label = `before → after ${id}`;
    const file = target.entry.file;
    // A command may change a binary file: its bytes are not text to diff.
    if (isBinary(before) || isBinary(after)) return { file, language: 'plaintext', before: null, after: null, label, binary: true, sizes: [before?.length ?? null, after?.length ?? null] };
    return { file, language: languageOf(file), before: text(before), after: text(after), label };
  }

  async fileDiff(requested: string): Promise<DiffSides> {
    const { abs, rel } = await resolveInWorkspace(this.root, requested);
    if (!rel) throw new InvalidArgumentError('Give a file path, not the workspace folder.');
    const git = await this.log.git();
    // The stored blob, never `git show`: that would run a textconv driver the repository names.
    const head = git ? text(await git.blob('HEAD', rel).catch(() => null)) : null;
    // A FIFO or a link swapped in shows as an error, never a hang or another file's bytes.
    const now = (await readInside(this.root, abs, { rel }))?.buf.toString('utf8') ?? null;
    return { file: rel, language: languageOf(rel), before: head, after: now, label: git ? 'HEAD → working tree' : 'empty → working tree' };
  }

  async rollback(p: Params<'modlog.rollback'>) {
    if (await isGroup(this.log, p.modification_id)) {
      // A group (a command's writes, an undo) goes back as one step: an undo's rollback is its redo.
      const seen = foreseeFiles(this.lsp, { modlog: this.log });
      const out = await seen.land(
        () => rollbackGroup(this.log, p.modification_id, { sessionId: this.sessionId, tool: 'review', reason: p.reason, confirm: seen.confirm }),
        (done) => groupLanded(this.log, done.group_id),
      );
      return { rollback_id: out.group_id, file: out.files[0] ?? '', files: out.files };
    }
    const seen = foreseeFiles(this.lsp, { modlog: this.log });
    const out = await seen.land(
      () => rollbackModification(this.log, { modificationId: p.modification_id, reason: p.reason, sessionId: this.sessionId, tool: 'review', confirm: seen.confirmOne }),
      landedOne,
    );
    return { rollback_id: out.rollback_id, file: out.file };
  }

  async revertHunk(p: Params<'modlog.revertHunk'>) {
    if (!Number.isInteger(p.hunk) || p.hunk < 0) throw new InvalidArgumentError('hunk must be a whole number from 0');
    const seen = foreseeFiles(this.lsp, { modlog: this.log });
    const out = await seen.land(() => rollbackModification(this.log, { modificationId: p.modification_id, hunk: p.hunk, sessionId: this.sessionId, tool: 'review', confirm: seen.confirmOne }), landedOne);
    return { rollback_id: out.rollback_id, file: out.file };
  }

  approve(id: string): Promise<void> {
    return approveModification(this.log, id);
  }

  commitApproved(message: string) {
    if (!message.trim()) throw new InvalidArgumentError('A commit message is required.');
    return commitApproved(this.log, message);
  }
}
