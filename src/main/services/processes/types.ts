// What a background process is, for the tools, the host's Processes pane and the CLI
// (docs/architecture.md, "Background processes").
import type { ProcessView } from '../../../shared/contract';
import type { SandboxPolicy } from '../sandbox/bwrapPolicy';

export type ProcessStatus = ProcessView['status'];

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
  /** The subagent that started it, when a child session did: it stops when that child ends. */
  agentId?: string;
  correlationId?: string | null;
}

/** One process as every reader sees it: the contract's view (snake_case, shared with tool data). */
export type ProcessInfo = ProcessView;

export interface WaitResult {
  satisfied: boolean;
  timed_out: boolean;
  /** It ended before the condition was met (or that was the condition). */
  exited: boolean;
  matched_line?: string;
  port?: number;
}
