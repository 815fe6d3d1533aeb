import type { TrustView } from '../../shared/contract';
import { errorMessage } from '../host-client';
import type { SliceCreator } from './types';

export interface TrustSlice {
  /** The open folder's trust; null until known (or with no workspace). */
  trust: TrustView | null;
  trustBusy: boolean;
  trustError: string | null;
  loadTrust(): Promise<void>;
  trustChanged(view: TrustView | null): void;
  /** Trusts the content the prompt shows (its digest), nothing written since. */
  acceptTrust(): Promise<void>;
  declineTrust(): Promise<void>;
  /** Shows the prompt again after a decline (the status bar's "Project rules off"). */
  reopenTrust(): void;
}

/** The prompt is up when the config grants something, is not trusted, and was not declined. */
export const trustPromptShown = (t: TrustView | null): t is TrustView => Boolean(t && t.needed && !t.trusted && !t.declined && t.digest);

export const createTrustSlice: SliceCreator<TrustSlice> = (set, get, { client }) => {
  const answer = async (channel: 'trust.accept' | 'trust.decline') => {
    const t = get().trust;
    if (!t?.digest || get().trustBusy) return;
    set({ trustBusy: true, trustError: null });
    try {
      get().trustChanged(await client.request(channel, { digest: t.digest }));
    } catch (err) {
      set({ trustError: errorMessage(err) });
    } finally {
      set({ trustBusy: false });
    }
  };
  return {
    trust: null,
    trustBusy: false,
    trustError: null,

    async loadTrust() {
      try {
        get().trustChanged(await client.request('trust.get', undefined));
      } catch {
        set({ trust: null });
      }
    },

    trustChanged(view) {
      // Another folder's answer arriving late must not show over this one.
      const root = get().workspace?.root;
      set({ trust: view && root && view.root !== root ? get().trust : view });
    },

    acceptTrust: () => answer('trust.accept'),
    declineTrust: () => answer('trust.decline'),

    reopenTrust() {
      const t = get().trust;
      if (t && !t.trusted) set({ trust: { ...t, declined: false } });
    },
  };
};
