import type { ApprovalRequestView } from '../../shared/contract';
import { errorMessage } from '../host-client';
import type { SliceCreator } from './types';

export interface ApprovalAnswerInput {
  answer: 'once' | 'always' | 'deny';
  message?: string;
  /** The edited "always" patterns. */
  patterns?: string[];
  /** Where "always" is saved: the project's shared config, or only this user's settings for this folder. */
  scope?: 'project' | 'user';
}

export interface ApprovalsSlice {
  approvals: ApprovalRequestView[];
  /** The card being answered, one request at a time per card. */
  approvalBusy: Record<string, boolean>;
  approvalError: string | null;
  loadApprovals(): Promise<void>;
  approvalsChanged(requests: ApprovalRequestView[]): void;
  answerApproval(id: string, input: ApprovalAnswerInput): Promise<void>;
  /**
   * The keys from the chat input: Ctrl+Enter allows the first waiting card once, Esc denies it.
   * A risky card is never allowed from the keyboard: it is nudged instead (it says why). False
   * when no card waits.
   */
  answerFirstApproval(answer: 'once' | 'deny'): boolean;
  /** A card asked to draw attention to itself (a risky one met Ctrl+Enter); `n` counts the asks. */
  approvalNudge: { id: string; n: number } | null;
  nudgeApproval(id: string): void;
}

/** A card about something that cannot be taken back: Deny is its default, and no key allows it. */
export const riskyApproval = (r: ApprovalRequestView): boolean => (r.risk?.length ?? 0) > 0;

export const createApprovalsSlice: SliceCreator<ApprovalsSlice> = (set, get, { client }) => ({
  approvals: [],
  approvalBusy: {},
  approvalError: null,

  async loadApprovals() {
    try {
      set({ approvals: await client.request('approvals.list', undefined) });
    } catch {
      set({ approvals: [] });
    }
  },

  approvalsChanged: (requests) => set({ approvals: requests }),

  approvalNudge: null,
  nudgeApproval: (id) => set((s) => ({ approvalNudge: { id, n: (s.approvalNudge?.n ?? 0) + 1 } })),

  answerFirstApproval(answer) {
    const first = get().approvals[0];
    if (!first) return false;
    if (answer === 'once' && riskyApproval(first)) get().nudgeApproval(first.id);
    else void get().answerApproval(first.id, { answer });
    return true;
  },

  async answerApproval(id, input) {
    if (get().approvalBusy[id]) return;
    set((s) => ({ approvalBusy: { ...s.approvalBusy, [id]: true }, approvalError: null }));
    try {
      const r = await client.request('approvals.answer', { id, ...input });
      if (!r.answered) set((s) => ({ approvals: s.approvals.filter((a) => a.id !== id) }));
    } catch (err) {
      set({ approvalError: errorMessage(err) });
    } finally {
      set((s) => {
        const { [id]: _done, ...rest } = s.approvalBusy;
        return { approvalBusy: rest };
      });
    }
  },
});
