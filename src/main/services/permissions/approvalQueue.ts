// Requests waiting for a person. Whoever can answer either listens for requests (the approval
// cards) or registers a responder (an MCP client through elicitation, a terminal prompt); a
// queue made for unattended runs denies at once when no responder answers, never hangs.
import { randomUUID } from 'node:crypto';
import { AbortedError } from '../../errors';
import type { ApprovalKind, PermissionRule } from './types';
import type { DiagnosticsView } from '../../../shared/contract';

export interface ApprovalRequest {
  id: string;
  kind: ApprovalKind;
  /** The tool that asked: bash, webfetch, edit_file, … */
  tool: string;
  /** What will happen, for a person: the command, the URL, the path. */
  summary: string;
  /** Why it is asking: the decision's reason. */
  reason: string;
  /** The rule that made it ask, as text, or null when the built-in default did. */
  rule: string | null;
  /** What "allow always" would add to .loupe/config.json. */
  always: PermissionRule[];
  /** For edits: the proposed change as a unified diff. */
  diff?: string;
  /** More for the person to read before answering: an MCP call's arguments as formatted JSON, a server's full configuration. */
  details?: string;
  /** For edits: both sides whole, so a person can read the change in a diff editor (null: no file). */
  edit?: ProposedEdit;
  /** Commands: whether it will run inside the OS sandbox (the card's `data-sandboxed`). */
  sandboxed?: boolean;
  /** Why it cannot be taken back (a destructive command, a write outside the workspace): the card's `data-risk="high"`. */
  risk?: string[];
  /** A background process: it keeps running after the call returns. */
  background?: boolean;
  /** The model's tool call that asked, so the chat binds the question to its card. */
  call_id?: string;
  /** The request the call belongs to. */
  correlation_id?: string;
  /** The chat session of that request (sessions in worktrees ask in the same queue as the main folder's). */
  session_id?: string;
  /** The folder's own config has a rule that would allow this once the folder is trusted. */
  trust_would_allow?: string;
  createdAt: string;
}

/** Asks again whether the request still needs a person (trust changed): true lets it through. */
export type Recheck = () => Promise<boolean>;

export interface ProposedEdit {
  path: string;
  before: string | null;
  after: string | null;
  /** Monaco's language id for colouring both sides. */
  language: string;
  /** What the language server says the edit would introduce. */
  diagnostics?: DiagnosticsView;
}

/** `unattended`: nobody could be asked, so the queue said no on its own (not a person's answer). */
export type ApprovalAnswer = { answer: 'once' } | { answer: 'always' } | { answer: 'deny'; message?: string; unattended?: true };

export type ApprovalEvent = { type: 'requested'; request: ApprovalRequest } | { type: 'resolved'; id: string; answer: ApprovalAnswer | { answer: 'cancelled' } };

/** Answers without a person in the loop; null means "I cannot", and the request waits. */
export type Responder = (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalAnswer | null>;

export const UNATTENDED_MESSAGE = 'Nobody is here to approve it.';

interface Pending {
  request: ApprovalRequest;
  resolve: (a: ApprovalAnswer) => void;
  recheck?: Recheck;
}

export class ApprovalQueue {
  private readonly pending = new Map<string, Pending>();
  private readonly listeners = new Set<(e: ApprovalEvent) => void>();
  private responder: Responder | null = null;

  /** `deny`: when no responder answers, deny at once instead of waiting (headless runs). */
  constructor(private readonly whenUnattended: 'wait' | 'deny' = 'wait') {}

  setResponder(responder: Responder | null): void {
    this.responder = responder;
  }

  onEvent(listener: (e: ApprovalEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  list(): ApprovalRequest[] {
    return [...this.pending.values()].map((p) => p.request);
  }

  /**
   * Decides every waiting request again (the folder was trusted, rules changed): those that no
   * longer need a person go through as if allowed once, and their cards go.
   */
  async recheck(): Promise<void> {
    for (const [id, p] of [...this.pending]) {
      if (p.recheck && (await p.recheck().catch(() => false)) && this.pending.get(id) === p) this.answer(id, { answer: 'once' });
    }
  }

  async request(input: Omit<ApprovalRequest, 'id' | 'createdAt'>, signal?: AbortSignal, recheck?: Recheck): Promise<ApprovalAnswer> {
    if (signal?.aborted) throw new AbortedError('The approval request');
    const request: ApprovalRequest = { ...input, id: `appr-${randomUUID()}`, createdAt: new Date().toISOString() };
    if (this.responder) {
      const ac = new AbortController();
      const stop = () => ac.abort();
      signal?.addEventListener('abort', stop, { once: true });
      try {
        const answer = await this.responder(request, ac.signal);
        if (answer) return answer;
      } finally {
        signal?.removeEventListener('abort', stop);
      }
      if (signal?.aborted) throw new AbortedError('The approval request');
    }
    if (this.whenUnattended === 'deny') {
      const answer: ApprovalAnswer = { answer: 'deny', message: UNATTENDED_MESSAGE, unattended: true };
      this.emit({ type: 'requested', request });
      this.emit({ type: 'resolved', id: request.id, answer });
      return answer;
    }

    return new Promise<ApprovalAnswer>((resolve, reject) => {
      const onAbort = () => {
        this.pending.delete(request.id);
        this.emit({ type: 'resolved', id: request.id, answer: { answer: 'cancelled' } });
        reject(new AbortedError('The approval request'));
      };
      this.pending.set(request.id, {
        request,
        recheck,
        resolve: (a) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(a);
        },
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      this.emit({ type: 'requested', request });
    });
  }

  /** Returns false when the request is no longer pending (answered elsewhere, cancelled). */
  answer(id: string, answer: ApprovalAnswer): boolean {
    const p = this.pending.get(id);
    if (!p) return false;
    this.pending.delete(id);
    p.resolve(answer);
    this.emit({ type: 'resolved', id, answer });
    return true;
  }

  private emit(e: ApprovalEvent): void {
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        // A broken listener must not strand the request.
      }
    }
  }
}
