// What a background process is, for the tools, the host's Processes pane and the CLI
// (docs/architecture.md, "Background processes").
import type { SandboxPolicy } from '../sandbox/bwrapPolicy';
import type { Forward } from '../sandbox/net/sandboxNet';
import type { NetworkActivity } from '../sandbox/net/types';

/** starting: waiting for its wait_for; running: no condition to wait for; ready: it was met. */
export type ProcessStatus = 'starting' | 'running' | 'ready' | 'exited' | 'killed';

export type WaitFor = { regex: string } | { port: number } | { exit: true };

export interface ProcessSpec {
  command: string;
  /** Absolute folder it runs in. */
  cwd: string;
  description?: string;
  /** Inside the OS sandbox with this policy; absent: outside. */
  sandbox?: SandboxPolicy;
  /** The chat or connection that started it: it owns the process. */
  sessionId: string;
  correlationId?: string | null;
}

/** One process as every reader sees it (snake_case: tool data and the contract share it). */
export interface ProcessInfo {
  process_id: string;
  command: string;
  description: string | null;
  /** Workspace-relative folder ('' for the root). */
  cwd: string;
  pid: number | null;
  status: ProcessStatus;
  exit_code: number | null;
  signal: string | null;
  /** Why it was stopped: a request, the idle limit, the workspace closing. */
  kill_reason: string | null;
  sandboxed: boolean;
  /** Ports it listens on (inside the sandbox when sandboxed). */
  ports: number[];
  /** Where each port is reachable on this machine (127.0.0.1). */
  forwards: Forward[];
  started_at: string;
  ended_at: string | null;
  session_id: string;
  correlation_id: string | null;
  output_bytes: number;
  /** The full log, workspace-relative; null when it could not be written. */
  log_path: string | null;
  network: NetworkActivity | null;
}

export interface WaitResult {
  satisfied: boolean;
  timed_out: boolean;
  /** It ended before the condition was met (or that was the condition). */
  exited: boolean;
  matched_line?: string;
  port?: number;
}
