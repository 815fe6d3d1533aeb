// A session's runner: what does the work of its requests. Loupe's own loop is one; a child
// session of another (a subagent) and another agent hosted by Loupe are others. The host keeps
// the session (its transcript, its queue, its requests, its file) and hands each request to the
// session's runner; every runner reports through the same events, asks through the workspace's
// one approval queue and writes through its one modification log, so the chat, the usage meter,
// the approval cards and the timeline see every runner alike (docs/architecture.md, "Sessions
// and their runners").
import type { ChatMode, SessionUsage, UsageView } from '../../../shared/contract';
import type { ChatMessage, UserContentPart } from '../llm/types';
import type { AgentEvent, RunStatus } from '../loop/events';
import type { RequestGrants } from '../../services/permissions/grants';

/** What a session keeps between requests that its runner reads and brings up to date. */
export interface RunnerState {
  /** The conversation as the model sees it (Loupe's loop); a hosted agent keeps its own and leaves this as it was. */
  messages: ChatMessage[];
  /** Tokens and cost so far: the session's totals, and the meter as the last call left it. */
  usage?: { session?: SessionUsage; last?: UsageView };
  /** The system prompt this session was last told, so an unchanged one is not announced again. */
  announcedPrompt?: string;
}

export interface RunnerRequest {
  /** The person's words (with a plan's text appended when the request executes one). */
  prompt: string;
  /** The message as sent when it carries more than the words (attached files, images). */
  content?: string | UserContentPart[];
  correlationId: string;
  mode: ChatMode;
  signal: AbortSignal;
  /** Messages the person sent meanwhile with "send now", given at the next tool boundary. */
  steering?: { take(): string[] };
  /** What the command that became this request allows while it runs (its allowed-tools); skills loaded later add theirs. */
  grants?: RequestGrants;
  /** `/compact`: summarise the conversation now instead of asking the model anything. */
  compact?: boolean;
}

export interface RunnerResult {
  status: RunStatus;
  text: string;
  turns: number;
  error?: { code: string; message: string };
}

/** What a request may carry, as the runner's model takes it: checked before the request starts. */
export interface RunnerReadiness {
  /** Images can be sent with the words. */
  images: boolean;
  /** The model that will answer, when the runner knows it (named in a refusal). */
  model?: string;
}

export interface SessionRunner {
  /** Who does the work: `loupe` for Loupe's own loop, or the name of a hosted agent. */
  readonly agent: string;
  /**
   * Whether a request can start now, before anything is kept of it: throws (no model connected,
   * the agent's program missing) with what to do. `images`: the request carries images, so the
   * answer must say whether they can go.
   */
  ready(opts: { images: boolean }): Promise<RunnerReadiness>;
  /**
   * Runs one request. Every event goes to `emit` in order and the last is `request_finished`;
   * `state` is up to date when that event is emitted, so a listener can save the session then.
   * Never throws for the model's or a tool's failure: the request ends with a status.
   */
  run(request: RunnerRequest, state: RunnerState, emit: (event: AgentEvent) => void): Promise<RunnerResult>;
  /** The session is closed (`deleted`, or its folder released, the host quitting): ends whatever the runner keeps running. */
  dispose(why?: 'deleted' | 'closed'): Promise<void>;
}
