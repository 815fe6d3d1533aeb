// Sessions side by side (docs/architecture.md, "Sessions side by side"): chat sessions of the open
// folder that work in Loupe's git worktrees of it, each with that worktree's own services (built
// by the composition root like any folder's, asking in the open folder's one approval queue) and
// its own agent loop. The sidebar's rows come from here: each session's status (working, waiting
// for you, done) and what its worktree changed against the commit it shares with the main folder.
// Bringing the work back (apply) and discarding go through the worktrees service, as the CLI does.
import path from 'node:path';
import type { ChatEvent, DiffSides, HostEvents, SessionStatus, WorktreeChangesView, WorktreeDiscardReportView, WorktreeSessionView } from '../../shared/contract';
import { InvalidArgumentError, LoupeError } from '../errors';
import type { Logger } from '../services/log/logger';
import { readInside } from '../services/files/safeOpen';
import { languageOf } from '../services/workspace/language';
import { applyPlan, planApply, selectFiles, type ApplyPlan } from '../services/worktrees/applyToMain';
import { WorktreeChangedError, WorktreeNotFoundError } from '../services/worktrees/errors';
import { checkName } from '../services/worktrees/names';
import { carryTrust } from '../services/worktrees/trust';
import type { WorkspaceServices } from '../workspace/compose';
import type { AgentHost } from './agent';

type Emit = <E extends keyof HostEvents>(event: E, payload: HostEvents[E]) => void;

/** How long status changes are gathered before the list goes out, and changed lines recounted. */
export const STATUS_COALESCE_MS = 50;
export const STATS_DEBOUNCE_MS = 300;

interface Entry {
  name: string;
  branch: string;
  path: string;
  missing: boolean;
  services: WorkspaceServices | null;
  sessionId: string;
  stats: { files: number; added: number; removed: number; applied_files: number };
  /** A recount waits or runs: the next one starts after it. */
  counting: Promise<void> | null;
  recount: ReturnType<typeof setTimeout> | null;
}

export interface WorktreeSessionsOptions {
  /** The open folder's services (NO_WORKSPACE when none). */
  main: () => WorkspaceServices;
  /** Builds a worktree's services, asking in the open folder's queue. */
  compose: (root: string, main: WorkspaceServices) => WorkspaceServices;
  /** The sessions side of the agent (the host loads the agent itself on first use). */
  agent: Pick<AgentHost, 'sessionIn' | 'release' | 'sessionState' | 'waitingSessions'>;
  emit: Emit;
  logger: Logger;
}

/** Events that can move a session's status or its changed lines (tokens cannot). */
const MOVES = new Set<ChatEvent['type']>(['request_started', 'request_finished', 'tool_call_finished']);

export class WorktreeSessions {
  /** The open folder these entries belong to; another folder starts over. */
  private of: WorkspaceServices | null = null;
  private loading: Promise<void> | null = null;
  private readonly entries = new Map<string, Entry>();
  private readonly bySession = new Map<string, Entry>();
  private emitTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly opts: WorktreeSessionsOptions) {}

  /** The worktree name of a worktree's services, for approval cards. */
  nameOf(services: WorkspaceServices): string | undefined {
    for (const e of this.entries.values()) if (e.services === services) return e.name;
    return undefined;
  }

  async list(): Promise<WorktreeSessionView[]> {
    await this.load();
    return this.views();
  }

  /** Makes (or finds) worktree `name` and its session; the main folder is not touched. */
  async create(name: string): Promise<WorktreeSessionView> {
    checkName(name);
    await this.load();
    const main = this.opts.main();
    const made = await main.worktrees.create(name);
    // The main folder's trust holds there while the worktree's config is the same bytes.
    await carryTrust(main.root, made.path, main.user);
    const entry = await this.open(main, { name, branch: made.branch, path: made.path, missing: false });
    this.scheduleRecount(entry, 0);
    this.changed();
    return this.view(entry);
  }

  /**
   * A worktree for a subagent that works isolated: made as any worktree session's is (the main
   * folder's trust carried, services that ask in the one queue), its row showing the child's
   * session once adopted; its changes are reviewed and applied as any worktree's.
   */
  async isolate(name: string): Promise<{ services: WorkspaceServices; name: string; adopt(sessionId: string): void }> {
    checkName(name);
    await this.load();
    const main = this.opts.main();
    const made = await main.worktrees.create(name);
    await carryTrust(main.root, made.path, main.user);
    const services = this.opts.compose(made.path, main);
    const entry: Entry = { name, branch: made.branch, path: made.path, missing: false, services, sessionId: '', stats: { files: 0, added: 0, removed: 0, applied_files: 0 }, counting: null, recount: null };
    this.entries.set(name, entry);
    return {
      services,
      name,
      adopt: (sessionId) => {
        entry.sessionId = sessionId;
        this.bySession.set(sessionId, entry);
        this.scheduleRecount(entry, 0);
        this.changed();
      },
    };
  }

  async changes(name: string): Promise<WorktreeChangesView> {
    const plan = await this.plan(name);
    return {
      worktree: plan.name,
      branch: plan.branch,
      base: plan.base,
      files: plan.files.map((f) => ({ file: f.file, operation: f.operation, merged: f.merged, added: f.added, removed: f.removed })),
      conflicts: plan.conflicts.map((c) => ({ ...c })),
      applied: plan.applied.map((a) => ({ ...a })),
    };
  }

  /** One changed file: its content at the base → in the worktree now. Only files the worktree changed. */
  async fileDiff(name: string, file: string): Promise<DiffSides> {
    if (typeof file !== 'string' || !file) throw new InvalidArgumentError('path must be a file the worktree changed');
    const entry = await this.entry(name);
    const plan = await this.plan(name);
    if (!plan.files.some((f) => f.file === file) && !plan.conflicts.some((c) => c.file === file)) throw new InvalidArgumentError(`${file} is not among the changes of worktree ${name}.`);
    const git = await entry.services!.modlog.git();
    // The stored blob, never `git show`: that would run a textconv driver the repository names.
    const before = git ? await git.blob(plan.base, file).catch(() => null) : null;
    const after = (await readInside(entry.path, path.join(entry.path, file), { rel: file }).catch(() => null))?.buf ?? null;
    const label = `base ${plan.base.slice(0, 10)} → worktree ${name}`;
    const binary = (b: Buffer | null) => !!b && b.subarray(0, 8000).includes(0);
    if (binary(before) || binary(after)) return { file, language: 'plaintext', before: null, after: null, label, binary: true, sizes: [before?.length ?? null, after?.length ?? null] };
    return { file, language: languageOf(file), before: before?.toString('utf8') ?? null, after: after?.toString('utf8') ?? null, label };
  }

  /** The worktree's changes (or the files chosen) into the main folder's log as one group; APPLY_CONFLICT changes nothing. */
  async apply(name: string, files?: string[]): Promise<{ group_id: string; files: string[] }> {
    const whole = await this.plan(name);
    const plan = files ? selectFiles(whole, files) : whole;
    const done = await applyPlan(this.opts.main().modlog, plan, { sessionId: `review-${Date.now().toString(36)}` });
    // The row says what the main folder now holds.
    const entry = this.entries.get(name);
    if (entry) this.scheduleRecount(entry, 0);
    return { group_id: done.group_id, files: done.files };
  }

  async discardReport(name: string): Promise<WorktreeDiscardReportView> {
    checkName(name);
    const r = await this.opts.main().worktrees.report(name);
    return { worktree: r.name, branch: r.branch, path: r.path, missing: r.missing, uncommitted: r.uncommitted, commits: r.commits, digest: r.digest };
  }

  /** Only what the person saw goes: its sessions stop first, then the folder and the branch. */
  async discard(name: string, digest: string): Promise<void> {
    if ((await this.discardReport(name)).digest !== digest) throw new WorktreeChangedError(name);
    const entry = this.entries.get(name);
    if (entry) await this.close(entry);
    await this.opts.main().worktrees.discard(name, digest);
    this.changed();
  }

  /** Every event the host sends passes here: a session's start, end, tool result or question moves its row. */
  observe<E extends keyof HostEvents>(event: E, payload: HostEvents[E]): void {
    if (event === 'approvals.changed') {
      if (this.entries.size) this.changed();
      return;
    }
    if (event !== 'chat.event') return;
    const { session_id, event: e } = payload as HostEvents['chat.event'];
    // An isolated subagent's events arrive on its parent's stream, named by its own id.
    const entry = this.bySession.get(e.agent_id ?? session_id);
    if (!entry || !MOVES.has(e.type)) return;
    if (e.type !== 'request_started') this.scheduleRecount(entry, STATS_DEBOUNCE_MS);
    this.changed();
  }

  /** The open folder changed or the host stops: every worktree session stops and is saved. */
  async release(): Promise<void> {
    if (this.emitTimer) clearTimeout(this.emitTimer);
    this.emitTimer = null;
    const all = [...this.entries.values()];
    this.entries.clear();
    this.bySession.clear();
    this.of = null;
    this.loading = null;
    await Promise.all(all.map((e) => this.close(e)));
  }

  // ---- inside ------------------------------------------------------------------------------

  /** Reads the open folder's worktrees once (a folder that is no repository top has none). */
  private async load(): Promise<void> {
    const main = this.opts.main();
    if (this.of !== main) {
      await this.release();
      this.of = main;
    }
    this.loading ??= (async () => {
      const listed = await main.worktrees.list(undefined, { sizes: false }).catch((err: unknown) => {
        if (err instanceof LoupeError && err.code === 'INVALID_ARGUMENT') return [];
        throw err;
      });
      for (const w of listed) {
        if (this.of !== main || this.entries.has(w.name)) continue;
        const entry = await this.open(main, { name: w.name, branch: w.branch, path: w.path, missing: w.missing });
        this.scheduleRecount(entry, 0);
      }
    })();
    await this.loading;
  }

  private async open(main: WorkspaceServices, w: { name: string; branch: string; path: string; missing: boolean }): Promise<Entry> {
    const known = this.entries.get(w.name);
    if (known && !known.missing) return known;
    if (known) this.forget(known);
    const services = w.missing ? null : this.opts.compose(w.path, main);
    const sessionId = services ? await this.opts.agent.sessionIn(services) : '';
    const entry: Entry = { ...w, services, sessionId, stats: { files: 0, added: 0, removed: 0, applied_files: 0 }, counting: null, recount: null };
    this.entries.set(w.name, entry);
    if (sessionId) this.bySession.set(sessionId, entry);
    return entry;
  }

  private forget(entry: Entry): void {
    if (entry.recount) clearTimeout(entry.recount);
    entry.recount = null;
    if (this.entries.get(entry.name) === entry) this.entries.delete(entry.name);
    if (this.bySession.get(entry.sessionId) === entry) this.bySession.delete(entry.sessionId);
  }

  private async close(entry: Entry): Promise<void> {
    this.forget(entry);
    if (!entry.services) return;
    await this.opts.agent.release(entry.services);
    await entry.counting?.catch(() => undefined);
    await entry.services.dispose();
  }

  private async entry(name: string): Promise<Entry> {
    checkName(name);
    await this.load();
    const e = this.entries.get(name);
    if (!e || e.missing || !e.services) throw new WorktreeNotFoundError(name);
    return e;
  }

  private async plan(name: string): Promise<ApplyPlan> {
    const e = await this.entry(name);
    const main = this.opts.main();
    return planApply(main.root, e.path, name, { linked: main.worktrees.linked() });
  }

  private status(entry: Entry, waiting: Set<string>): SessionStatus {
    const state = entry.sessionId ? this.opts.agent.sessionState(entry.sessionId) : null;
    // Done means it ran: a session no request has started in is new, whatever its folder holds.
    if (!state?.running) return state && state.requests > 0 ? 'done' : 'new';
    return waiting.has(entry.sessionId) ? 'waiting' : 'working';
  }

  private view(entry: Entry, waiting = this.opts.agent.waitingSessions()): WorktreeSessionView {
    const state = entry.sessionId ? this.opts.agent.sessionState(entry.sessionId) : null;
    return {
      session_id: entry.sessionId,
      title: state?.title ?? entry.name,
      worktree: entry.name,
      branch: entry.branch,
      path: entry.path,
      status: this.status(entry, waiting),
      missing: entry.missing,
      ...entry.stats,
    };
  }

  private views(): WorktreeSessionView[] {
    const waiting = this.opts.agent.waitingSessions();
    return [...this.entries.values()].sort((a, b) => a.name.localeCompare(b.name)).map((e) => this.view(e, waiting));
  }

  /** The whole list goes out once per burst of changes. */
  private changed(): void {
    if (this.emitTimer) return;
    this.emitTimer = setTimeout(() => {
      this.emitTimer = null;
      if (this.of) this.opts.emit('worktree.sessions', { sessions: this.views() });
    }, STATUS_COALESCE_MS);
  }

  /** Counts the worktree's changed files and lines against its base, after `ms`; one count at a time. */
  private scheduleRecount(entry: Entry, ms: number): void {
    if (entry.missing || entry.recount) return;
    entry.recount = setTimeout(() => {
      entry.recount = null;
      const previous = entry.counting ?? Promise.resolve();
      const run = previous.then(async () => {
        if (this.entries.get(entry.name) !== entry) return;
        const main = this.opts.main();
        const plan = await planApply(main.root, entry.path, entry.name, { linked: main.worktrees.linked() });
        // Every file the worktree changed, whether still to apply, in conflict or already in the
        // main folder, counted as the worktree changed it (base → worktree), not as applying would write it.
        const files = plan.changed.length;
        const added = plan.changed.reduce((n, f) => n + f.added, 0);
        const removed = plan.changed.reduce((n, f) => n + f.removed, 0);
        const appliedFiles = plan.applied.length;
        const s = entry.stats;
        if (s.files === files && s.added === added && s.removed === removed && s.applied_files === appliedFiles) return;
        entry.stats = { files, added, removed, applied_files: appliedFiles };
        this.changed();
      });
      entry.counting = run.catch((err: unknown) => this.opts.logger.warn('worktree.count_failed', { worktree: entry.name, error: err }));
    }, ms);
  }
}
