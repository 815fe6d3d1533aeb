// The modification log's line shapes (docs/architecture.md, the modification log).
import type { DiagnosticsView } from '../../../shared/contract';

export type Operation =
  | 'create'
  | 'overwrite'
  | 'edit'
  | 'replace'
  | 'insert_before'
  | 'insert_after'
  | 'delete'
  | 'delete_file'
  | 'rollback';

export interface ModificationEntry {
  type: 'modification';
  modification_id: string;
  timestamp: string;
  session_id: string;
  /** A subagent made it: the child session's id (its request is `session_id`'s, `correlation_id`'s). Absent in older logs and for the session's own writes. */
  agent_id?: string;
  correlation_id?: string;
  tool: string;
  operation: Operation;
  file: string;
  lines_affected?: [number, number];
  lines_changed?: number;
  reason?: string;
  before_sha256: string | null;
  after_sha256: string | null;
  git_staged: boolean;
  /** The file's index entry before staging (null: not in the index), so a rollback can put it back. Absent outside git. */
  git_index_before?: { mode: string; oid: string } | null;
  rolls_back?: string;
  /** Set when a rollback reversed only one hunk (0-based) of `rolls_back`. */
  hunk?: number;
  /** With `hunk`: how many hunks `rolls_back`'s diff has, so "1 of 3 reverted" can be said. Absent in older logs. */
  hunk_count?: number;
  /**
   * The set this line belongs to, rolled back together by naming it where a modification id goes:
   * one command's writes (`group_kind` command), an undo of requests (undo), an undo's rollback (redo), another group's rollback (rollback), a worktree's changes applied to the main folder (worktree).
   */
  group_id?: string;
  group_kind?: GroupKind;
  /** On a command's lines: the command line that made the change. */
  command?: string;
  /** On a command's lines: ignored entries that changed too (never recorded). */
  ignored_changed?: number;
  /** A rename a command made, as a deletion of the old path and a creation of the new. */
  renamed_from?: string;
  renamed_to?: string;
  /** git modes of the file before and after (null: absent), when a command's change is recorded. */
  file_modes?: [string | null, string | null];
  /** On an undo's lines: the request the undo started from. */
  undo_of?: string;
  /** What the language server said the write introduced, asked just before it was written. */
  diagnostics?: DiagnosticsView;
}

export type GroupKind = 'command' | 'undo' | 'redo' | 'rollback' | 'worktree';

/** A log line to append whose id, time and staging the log fills in. */
export type EntryDraft = Omit<ModificationEntry, 'type' | 'modification_id' | 'timestamp' | 'git_staged' | 'git_index_before'>;

/**
 * A verdict on a modification, appended later (never a rewrite). Its `type` stays "review":
 * the log is a file format other programs read (see docs/architecture.md, One name per idea).
 */
export interface VerdictLine {
  type: 'review';
  modification_id: string;
  verdict: 'approved';
  timestamp: string;
}

export interface TestResultsLine {
  type: 'test_results';
  modification_id: string;
  correlation_id?: string;
  status: string;
  command: string;
  passed: number;
  failed: number;
  skipped: number;
  failing?: string[];
  duration_ms: number;
  timestamp: string;
}

/**
 * What the language server said about a modification after it was written: its problems came
 * after the write's bound (a cold server), so they are a later fact, never a rewrite of the line.
 * The latest one replaces the line's own `diagnostics` in the folded view.
 */
export interface DiagnosticsLine {
  type: 'diagnostics';
  modification_id: string;
  diagnostics: DiagnosticsView;
  timestamp: string;
}

export type LogLine = ModificationEntry | VerdictLine | TestResultsLine | DiagnosticsLine;

export interface ApplyRequest {
  /** Workspace-relative, forward slashes. */
  file: string;
  /** Absolute realpath of the same file (already checked to be inside the workspace). */
  abs: string;
  /** New bytes; null deletes the file. */
  content: Buffer | null;
  tool: string;
  operation: Operation;
  sessionId: string;
  /** The subagent that made the change, when a child session did. */
  agentId?: string;
  reason?: string;
  correlationId?: string;
  linesAffected?: [number, number];
  linesChanged?: number;
  rollsBack?: string;
  hunk?: number;
  hunkCount?: number;
  /**
   * Put this index entry back instead of staging the new content (a clean rollback restores
   * the entry the rolled-back modification replaced; null removes the path from the index).
   */
  restoreIndex?: { mode: string; oid: string } | null;
  /**
   * sha256 of the bytes the caller based the change on, null for "the file must not exist".
   * Checked inside the file's lock, so a change on disk in between is refused, not overwritten.
   */
  expectBeforeSha?: string | null;
  /** The problems the write introduces, as the language server said (recorded on the line). */
  diagnostics?: DiagnosticsView;
}

export interface ApplyResult {
  entry: ModificationEntry;
  modificationId: string;
  beforeSha: string | null;
  afterSha: string | null;
  gitStaged: boolean;
}

/**
 * The person's own saves from the viewer are modifications of this tool, under this session: the
 * timeline names them as the person's, the model is told of them, and an agent edit based on a
 * read they moved on from is merged over them (docs/architecture.md, "The person's own edits").
 */
export const PERSON_TOOL = 'person';
export const PERSON_SESSION = 'person';
