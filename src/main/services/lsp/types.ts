// What the language servers report, in Loupe's terms (docs/architecture.md, language servers):
// positions are 1-based lines and columns as read_file numbers them (a column counts UTF-16 code
// units, as LSP and tsserver do), severities are words, and a server's status is one small record.

export type Severity = 'error' | 'warning' | 'info' | 'hint';

export const SEVERITY_ORDER: Record<Severity, number> = { error: 0, warning: 1, info: 2, hint: 3 };

export interface Problem {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  severity: Severity;
  message: string;
  /** Who said it: "typescript", "Pyright", "go"… */
  source: string;
  code?: string;
}

/** What one write did to its file's problems. */
export interface WriteProblems {
  /** False when the server could not say in time (still starting, crashed, too slow). */
  available: boolean;
  /** New problems, errors first, then by line. */
  introduced: Problem[];
  /** Problems the file had before that are gone. */
  resolved: number;
  /** Why they are unavailable, when they are. */
  reason?: string;
  /** The server's name, for people ("typescript-language-server"). */
  server: string;
}

/**
 * A write's problems that did not come within the bound: the server goes on working, and
 * `result` holds what it says (null when it never could say, or the write was abandoned).
 */
export interface LateProblems {
  result: Promise<WriteProblems | null>;
  /** The write did not happen: stop waiting (its answer would describe nothing). */
  cancel(): void;
}

export type ServerState = 'starting' | 'ready' | 'restarting' | 'stopped' | 'failed';

export interface ServerStatus {
  /** The config key that names it: typescript, python, go, rust, cpp. */
  language: string;
  server: string;
  state: ServerState;
  /** Inside the OS sandbox (workspace read-only, no network). */
  sandboxed: boolean;
  pid?: number;
  /** The TypeScript a TypeScript server uses, and whose it is (Loupe's own, or the workspace's). */
  typescript?: { version: string; source: string };
  /** Why it is stopped or failed, or what it is waiting for. */
  message?: string;
}
