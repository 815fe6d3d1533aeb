// What a write would introduce, asked of the language server just before the write
// (docs/architecture.md, language servers): the proposed text goes to the server as an unsaved
// document, its problems are compared with the file's before, and the answer travels with the
// write — on the approval card when the edit asks first, on the modification's log line, in the
// tool's result. A write that does not happen puts the server's copy back. When the server could
// not say within the bound (a cold one loading the project), its answer is still awaited and, once
// the write has landed, appended to the log as a later fact: the timeline and the diff show it then.
import type { DiagnosticsView, ProblemView } from '../../../shared/contract';
import type { LanguageServers } from '../../services/lsp/languageServers';
import { MAX_INTRODUCED } from '../../services/lsp/introduced';
import type { LateProblems, Problem, WriteProblems } from '../../services/lsp/types';
import type { Logger } from '../../services/log/logger';
import { recordDiagnostics } from '../../services/modlog/facts';
import type { ModificationLog } from '../../services/modlog/modificationLog';
import type { WriteNotes } from '../../services/modlog/rollback';

/** Messages are cut here on the log line and in results; a type error can quote a whole type. */
const MAX_MESSAGE = 1000;

export interface Foreseen {
  /** Absent when no server serves the file (or servers are off). */
  view?: DiagnosticsView;
  /** The write did not happen: the server's copy goes back to the file's content. */
  abandon(): void;
  /** The write landed as this modification: problems that come after the bound are appended to the log for it (not waited for without an id). */
  landed(modificationId?: string): void;
}

const NOTHING: Foreseen = { abandon() {}, landed() {} };

/** Where a write's late problems go: the log they become a fact of, and the logger that hears a failure to append. */
export interface LateSink {
  modlog?: ModificationLog;
  logger?: Logger;
}

/** Once the late answer comes, it is appended as a diagnostics fact of `id`. */
function recordLate(late: LateProblems, sink: LateSink & { modlog: ModificationLog }, id: string): void {
  const { modlog, logger } = sink;
  void late.result
    .then((problems) => (problems ? recordDiagnostics(modlog, id, diagnosticsView(problems)) : undefined))
    .catch((error: unknown) => logger?.warn('lsp.late_not_recorded', { modification_id: id, error }));
}

export function problemView(p: Problem, file?: string): ProblemView {
  return {
    line: p.line,
    column: p.column,
    end_line: p.endLine,
    end_column: p.endColumn,
    severity: p.severity,
    message: p.message.length > MAX_MESSAGE ? `${p.message.slice(0, MAX_MESSAGE)}…` : p.message,
    source: p.source,
    ...(p.code !== undefined ? { code: p.code } : {}),
    ...(file ? { file } : {}),
  };
}

export function diagnosticsView(w: WriteProblems): DiagnosticsView {
  return {
    introduced: w.introduced.slice(0, MAX_INTRODUCED).map((p) => problemView(p)),
    resolved_count: w.resolved,
    available: w.available,
    introduced_count: w.introduced.length,
    errors: w.introduced.filter((p) => p.severity === 'error').length,
    warnings: w.introduced.filter((p) => p.severity === 'warning').length,
    server: w.server,
    ...(w.reason ? { reason: w.reason } : {}),
  };
}

const text = (b: string | Buffer | null): string | null => (b === null ? null : typeof b === 'string' ? b : b.toString('utf8'));

/** Asks the server what writing `after` over `before` introduces; nothing when no server serves `rel`. */
export async function foresee(ctx: { lsp?: LanguageServers; signal?: AbortSignal } & LateSink, rel: string, before: string | Buffer | null, after: string | Buffer | null): Promise<Foreseen> {
  const lsp = ctx.lsp;
  if (!lsp) return NOTHING;
  const was = text(before);
  const now = text(after);
  const problems = await lsp.preview(rel, was, now, ctx.signal);
  if (!problems) return NOTHING;
  const late = problems.late;
  return {
    view: diagnosticsView(problems),
    abandon: () => {
      late?.cancel();
      lsp.settle(rel, was);
    },
    landed: (id) => {
      if (!late) return;
      if (id && ctx.modlog) return recordLate(late, { modlog: ctx.modlog, logger: ctx.logger }, id);
      // Nobody to tell: the work stops, and the server's copy is what was written.
      late.cancel();
      lsp.settle(rel, now);
    },
  };
}

/** Several files' views as one (a group rollback, an undo): every problem names its file. */
export function mergeViews(byFile: Map<string, DiagnosticsView>): DiagnosticsView | undefined {
  const all = [...byFile];
  if (!all.length) return undefined;
  if (all.length === 1) return all[0][1];
  const introduced = all.flatMap(([file, v]) => v.introduced.map((p) => ({ ...p, file })));
  const rank = { error: 0, warning: 1, info: 2, hint: 3 };
  introduced.sort((a, b) => rank[a.severity] - rank[b.severity]);
  const missing = all.filter(([, v]) => !v.available);
  return {
    introduced: introduced.slice(0, MAX_INTRODUCED),
    resolved_count: all.reduce((n, [, v]) => n + v.resolved_count, 0),
    available: missing.length === 0,
    introduced_count: all.reduce((n, [, v]) => n + v.introduced_count, 0),
    errors: all.reduce((n, [, v]) => n + v.errors, 0),
    warnings: all.reduce((n, [, v]) => n + v.warnings, 0),
    server: [...new Set(all.map(([, v]) => v.server))].join(', '),
    ...(missing.length ? { reason: missing.map(([f, v]) => `${f}: ${v.reason ?? 'unavailable'}`).join('; ') } : {}),
  };
}

/** Runs the write; when it fails, the server's copy goes back to the file's content. */
export async function landWrite<T extends { modificationId: string }>(f: Foreseen, write: () => Promise<T>): Promise<T> {
  let res: T;
  try {
    res = await write();
  } catch (err) {
    f.abandon();
    throw err;
  }
  f.landed(res.modificationId);
  return res;
}

/** A group's modifications by file, for `land`: each file's last line carries its problems. */
export async function groupLanded(modlog: ModificationLog, groupId: string): Promise<Map<string, string>> {
  const fold = await modlog.index().sync();
  return new Map(fold.ofGroup(groupId).map((f): [string, string] => [f.file, f.id]));
}

export interface ForeseenFiles {
  /** A group rollback's `confirm`: each file foreseen (and authorized), their notes by file. */
  confirm(files: { file: string; current: Buffer | null; result: Buffer | null }[]): Promise<Map<string, WriteNotes>>;
  /** One rollback's `confirm`. */
  confirmOne(p: { file: string; before: Buffer | null; after: Buffer | null }): Promise<WriteNotes | undefined>;
  /**
   * Runs the write; if it fails, every server copy foreseen goes back. `landedAs` names the
   * modification each file's problems belong to, so that those that come after the bound are
   * appended for it (without it they are not waited for).
   */
  land<T>(write: () => Promise<T>, landedAs?: (out: T) => Promise<Map<string, string>> | Map<string, string>): Promise<T>;
  /** What was foreseen, by file. */
  views(): Map<string, DiagnosticsView>;
}

/**
 * Foresight for writes of several files (rollbacks, undos). `authorize`, when given, asks
 * permission for each file with its problems on the card (an agent's rollback); the person's own
 * rollbacks and undos only record them.
 */
export function foreseeFiles(
  lsp: LanguageServers | undefined,
  opts: LateSink & { signal?: AbortSignal; authorize?: (rel: string, before: Buffer | null, after: Buffer | null, view: DiagnosticsView | undefined) => Promise<void> } = {},
): ForeseenFiles {
  const seen = new Map<string, Foreseen>();
  const confirm = async (files: { file: string; current: Buffer | null; result: Buffer | null }[]) => {
    const notes = new Map<string, WriteNotes>();
    for (const f of files) {
      const one = await foresee({ lsp, signal: opts.signal, modlog: opts.modlog, logger: opts.logger }, f.file, f.current, f.result);
      seen.set(f.file, one);
      if (opts.authorize) {
        try {
          await opts.authorize(f.file, f.current, f.result, one.view);
        } catch (err) {
          for (const s of seen.values()) s.abandon();
          throw err;
        }
      }
      if (one.view) notes.set(f.file, { diagnostics: one.view });
    }
    return notes;
  };
  return {
    confirm,
    confirmOne: async ({ file, before, after }) => (await confirm([{ file, current: before, result: after }])).get(file),
    async land(write, landedAs) {
      let out;
      try {
        out = await write();
      } catch (err) {
        for (const s of seen.values()) s.abandon();
        throw err;
      }
      const ids = landedAs ? await Promise.resolve(landedAs(out)).catch(() => new Map<string, string>()) : new Map<string, string>();
      for (const [file, f] of seen) f.landed(ids.get(file));
      return out;
    },
    views: () => new Map([...seen].flatMap(([file, f]): [string, DiagnosticsView][] => (f.view ? [[file, f.view]] : []))),
  };
}
