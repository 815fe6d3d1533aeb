// What a write would introduce, asked of the language server just before the write
// (docs/architecture.md, language servers): the proposed text goes to the server as an unsaved
// document, its problems are compared with the file's before, and the answer travels with the
// write — on the approval card when the edit asks first, on the modification's log line, in the
// tool's result. A write that does not happen puts the server's copy back.
import type { DiagnosticsView, ProblemView } from '../../../shared/contract';
import type { LanguageServers } from '../../services/lsp/languageServers';
import { MAX_INTRODUCED } from '../../services/lsp/introduced';
import type { Problem, WriteProblems } from '../../services/lsp/types';
import type { WriteNotes } from '../../services/modlog/rollback';

/** Messages are cut here on the log line and in results; a type error can quote a whole type. */
const MAX_MESSAGE = 1000;

export interface Foreseen {
  /** Absent when no server serves the file (or servers are off). */
  view?: DiagnosticsView;
  /** The write did not happen: the server's copy goes back to the file's content. */
  abandon(): void;
}

const NOTHING: Foreseen = { abandon() {} };

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
export async function foresee(ctx: { lsp?: LanguageServers; signal?: AbortSignal }, rel: string, before: string | Buffer | null, after: string | Buffer | null): Promise<Foreseen> {
  const lsp = ctx.lsp;
  if (!lsp) return NOTHING;
  const was = text(before);
  const problems = await lsp.preview(rel, was, text(after), ctx.signal);
  if (!problems) return NOTHING;
  return { view: diagnosticsView(problems), abandon: () => lsp.settle(rel, was) };
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
export async function landWrite<T>(f: Foreseen, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    f.abandon();
    throw err;
  }
}

export interface ForeseenFiles {
  /** A group rollback's `confirm`: each file foreseen (and authorized), their notes by file. */
  confirm(files: { file: string; current: Buffer | null; result: Buffer | null }[]): Promise<Map<string, WriteNotes>>;
  /** One rollback's `confirm`. */
  confirmOne(p: { file: string; before: Buffer | null; after: Buffer | null }): Promise<WriteNotes | undefined>;
  /** Runs the write; if it fails, every server copy foreseen goes back. */
  land<T>(write: () => Promise<T>): Promise<T>;
  /** What was foreseen, by file. */
  views(): Map<string, DiagnosticsView>;
}

/**
 * Foresight for writes of several files (rollbacks, undos). `authorize`, when given, asks
 * permission for each file with its problems on the card (an agent's rollback); the person's own
 * rollbacks and undos only record them.
 */
export function foreseeFiles(lsp: LanguageServers | undefined, opts: { signal?: AbortSignal; authorize?: (rel: string, before: Buffer | null, after: Buffer | null, view: DiagnosticsView | undefined) => Promise<void> } = {}): ForeseenFiles {
  const seen = new Map<string, Foreseen>();
  const confirm = async (files: { file: string; current: Buffer | null; result: Buffer | null }[]) => {
    const notes = new Map<string, WriteNotes>();
    for (const f of files) {
      const one = await foresee({ lsp, signal: opts.signal }, f.file, f.current, f.result);
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
    async land(write) {
      try {
        return await write();
      } catch (err) {
        for (const s of seen.values()) s.abandon();
        throw err;
      }
    },
    views: () => new Map([...seen].flatMap(([file, f]): [string, DiagnosticsView][] => (f.view ? [[file, f.view]] : []))),
  };
}
