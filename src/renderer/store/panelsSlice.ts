import type { SliceCreator } from './types';

/** The right-hand column's tabs: the change timeline (review) or the agent (chat). */
export type AgentPanelTab = 'changes' | 'agent';

export interface PanelsSlice {
  agentPanelTab: AgentPanelTab;
  setAgentPanelTab(tab: AgentPanelTab): void;
  /** "Open diff" on a tool card: the Changes tab to the front, the modification in the diff view. */
  showModificationInReview(id: string): Promise<void>;
}

export const createPanelsSlice: SliceCreator<PanelsSlice> = (set, get) => ({
  agentPanelTab: 'changes',

  setAgentPanelTab(tab) {
    set({ agentPanelTab: tab });
  },

  async showModificationInReview(id) {
    set({ agentPanelTab: 'changes' });
    // Selects the timeline row as well: the entry is highlighted when the tab opens.
    await get().openModification(id);
  },
});
