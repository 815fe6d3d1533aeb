// What the `agent`, `agent_wait` and `agent_stop` tools reach through their context: a request's
// children (docs/architecture.md, "Subagents"). The host implements it (each child is a session
// of its own whose runner is Loupe's loop on a narrowed tool set and gate); tools never import
// the host, so the shape lives here, below both.
import type { ChatMode, SessionUsage } from '../../../shared/contract';
import type { PermissionGate } from '../../services/permissions/permissionGate';
import type { AgentEvent } from '../loop/events';
import type { ToolRegistry } from '../tools/registry';

/** How a child ended, as the card and the tool's result say it. */
export type ChildStatus = 'running' | 'done' | 'failed' | 'stopped';

/** Why a child stopped before it finished on its own. */
export type StopCause = 'request' | 'person' | 'agent' | 'turns' | 'budget' | 'session_budget' | 'closed';

export interface SpawnRequest {
  /** A few words for the card and the approvals it asks for. */
  description: string;
  /** The task, whole: the child sees nothing else of the parent's conversation. */
  prompt: string;
  /** A definition's name; absent: the definition's default (`general`). */
  agentType?: string;
  isolation?: 'worktree';
  /** Return at once with the child's id; `agent_wait` collects its result. */
  background?: boolean;
  /** The parent's tool call that starts it (the card sits under it). */
  callId: string;
}

/** A child's result: what the parent's model reads, and the card's figures. */
export interface ChildOutcome {
  agent_id: string;
  agent_type: string;
  description: string;
  status: ChildStatus;
  /** Its final message (or what it had said when stopped). */
  text: string;
  turns: number;
  /** Its model calls' tokens and cost so far. */
  tokens: number;
  cost_usd?: number;
  /** Files its modifications touched (in its worktree, for an isolated child). */
  files: string[];
  stopped_by?: StopCause;
  /** What went wrong or why it stopped, in words. */
  reason?: string;
  /** An isolated child's worktree: its changes wait there to be reviewed and applied. */
  worktree?: string;
}

/** The agent types a request may start, as the model is told them. */
export interface AgentTypeView {
  name: string;
  description: string;
  /** It only reads, whatever its tools say. */
  read_only: boolean;
}

/** A request's children, for its tools. Every call is bounded: by the limits, the budgets and the request's signal. */
export interface Subagents {
  types(): Promise<AgentTypeView[]>;
  /**
   * Starts a child. Refuses (a LoupeError) past the depth, the number at once or the session's
   * budget, for an unknown type, or where isolation cannot be had. `result` settles when it ends.
   */
  start(spawn: SpawnRequest, signal: AbortSignal): Promise<{ agentId: string; result: Promise<ChildOutcome> }>;
  /** Waits for a child of this request; while it still runs after `timeoutMs`, its outcome says `running`. */
  wait(agentId: string, signal: AbortSignal, timeoutMs?: number): Promise<ChildOutcome>;
  /** Stops a child of this request and answers with what it did until then. */
  stop(agentId: string): Promise<ChildOutcome>;
}

/** What the loop asks of a request's children at its end (agentLoop.ts `RunOptions.delegated`). */
export interface DelegatedWork {
  /** Results of children started in the background that nobody collected: waited for, then told the model. */
  collect(signal: AbortSignal): Promise<string[]>;
  /** Every child still running is stopped and its end awaited, before the request says it finished. */
  settle(): Promise<void>;
}

/** What a request's children are made from: the request that starts them, as its runner holds it. */
export interface ChildrenOfRequest {
  correlationId: string;
  mode: ChatMode;
  signal: AbortSignal;
  /** The parent's stream: each child's card and events go there. */
  emit: (event: AgentEvent) => void;
  /** The parent's tools as this request offers them: a child is offered at most these. */
  registry: ToolRegistry;
  /** The parent's gate in the request's mode: a child's is this one narrowed. */
  permissions: PermissionGate;
  /** What a child spent since it last said: the session pays for it, and the meter says so. */
  count: (spent: SessionUsage) => void;
}

/** Makes a request's children, or null where none may be started (the depth is reached). */
export type ChildrenFactory = (request: ChildrenOfRequest) => (Subagents & DelegatedWork) | null;
