import type { Params, Result } from '../../shared/contract';
import type { SliceCreator } from './types';

/** The read-only searches the search boxes run. */
export type SearchChannel = 'files.find' | 'search.text';

/** The right-hand column's tabs: the change timeline (review) or the agent (chat). */
export type AgentPanelTab = 'changes' | 'agent';

export interface PanelsSlice {
  /** Before a folder's log is known: the person's last choice, else the agent (see settleOpeningTab). */
  agentPanelTab: AgentPanelTab;
  /** The agent column (Changes and Agent) is shown; the layout follows this, and a drag that collapses it sets it. */
  agentColumnOpen: boolean;
  /** The quick open or find in files box shown over the workbench, if any. */
  searchBox: 'quick-open' | 'find-in-files' | null;
  setSearchBox(box: 'quick-open' | 'find-in-files' | null): void;
  /** Runs one search for a search box; the box keeps its own results. */
  search<C extends SearchChannel>(channel: C, params: Params<C>): Promise<Result<C>>;
  setAgentPanelTab(tab: AgentPanelTab): void;
  /** The person clicked a tab: shown, and remembered for the next folder that has changes. */
  chooseAgentPanelTab(tab: AgentPanelTab): void;
  /**
   * A folder's log is loaded: with no modification yet the column opens on the agent (there is
   * nothing to review); once there are, on the tab the person last chose. A choice made since
   * the folder opened is kept.
   */
  settleOpeningTab(modifications: number): void;
  setAgentColumnOpen(open: boolean): void;
  /** The top bar's toggle: opening it with a question waiting shows the question. */
  toggleAgentColumn(): void;
  /** "Open diff" on a tool card: the Changes tab to the front, the modification in the diff view. */
  showModificationInReview(id: string): Promise<void>;
}

const TAB_KEY = 'loupe.agentPanelTab';

function rememberedTab(): AgentPanelTab | null {
  try {
    const v = localStorage.getItem(TAB_KEY);
    return v === 'changes' || v === 'agent' ? v : null;
  } catch {
    return null; // no storage (privacy modes, tests): nothing remembered
  }
}

export const createPanelsSlice: SliceCreator<PanelsSlice> = (set, get, { client }) => {
  /** The folder open when the person last chose a tab: their choice holds while it is open. */
  let chosenIn: string | null | undefined;
  return {
    agentPanelTab: rememberedTab() ?? 'agent',
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

    chooseAgentPanelTab(tab) {
      chosenIn = get().workspace?.root ?? null;
      try {
        localStorage.setItem(TAB_KEY, tab);
      } catch {
        // Forgotten on reload; nothing else depends on it.
      }
      set({ agentPanelTab: tab });
    },

    settleOpeningTab(modifications) {
      if (chosenIn !== undefined && chosenIn === (get().workspace?.root ?? null)) return;
      set({ agentPanelTab: modifications === 0 ? 'agent' : (rememberedTab() ?? 'changes') });
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
  };
};
