import type { Params, Result } from '../../shared/contract';
import type { SliceCreator } from './types';

/** The read-only searches the search boxes run. */
export type SearchChannel = 'files.find' | 'search.text';

/** The right-hand column's tabs: the change timeline (review) or the agent (chat). */
export type AgentPanelTab = 'changes' | 'agent';

export interface PanelsSlice {
  agentPanelTab: AgentPanelTab;
  /** The agent column (Changes and Agent) is shown; the layout follows this, and a drag that collapses it sets it. */
  agentColumnOpen: boolean;
  /** The quick open or find in files box shown over the workbench, if any. */
  searchBox: 'quick-open' | 'find-in-files' | null;
  setSearchBox(box: 'quick-open' | 'find-in-files' | null): void;
  /** Runs one search for a search box; the box keeps its own results. */
  search<C extends SearchChannel>(channel: C, params: Params<C>): Promise<Result<C>>;
  setAgentPanelTab(tab: AgentPanelTab): void;
  setAgentColumnOpen(open: boolean): void;
  /** The top bar's toggle: opening it with a question waiting shows the question. */
  toggleAgentColumn(): void;
  /** "Open diff" on a tool card: the Changes tab to the front, the modification in the diff view. */
  showModificationInReview(id: string): Promise<void>;
}

export const createPanelsSlice: SliceCreator<PanelsSlice> = (set, get, { client }) => ({
  agentPanelTab: 'changes',
  agentColumnOpen: true,
  searchBox: null,

  setSearchBox(box) {
    set({ searchBox: box });
  },

  search(channel, params) {
    return client.request(channel, params);
  },

  setAgentPanelTab(tab) {
    set({ agentPanelTab: tab });
  },

  setAgentColumnOpen(open) {
    if (get().agentColumnOpen !== open) set({ agentColumnOpen: open });
  },

  toggleAgentColumn() {
    const open = !get().agentColumnOpen;
    set({ agentColumnOpen: open, ...(open && get().approvals.length > 0 ? { agentPanelTab: 'agent' as const } : {}) });
  },

  async showModificationInReview(id) {
    set({ agentPanelTab: 'changes', agentColumnOpen: true });
    // Selects the timeline row as well: the entry is highlighted when the tab opens.
    await get().openModification(id);
  },
});
