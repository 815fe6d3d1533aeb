import type { AgentView } from '../../shared/contract';
import { errorMessage } from '../host-client';
import type { SliceCreator } from './types';

/** Other agents a session can run in this folder (ACP), as the session bar and the settings show them. */
export interface AgentsSlice {
  agents: AgentView[];
  agentsError: string | null;
  loadAgents(): Promise<void>;
  /** Enables a ready entry (its program found on PATH, or in `folder`) or disables one of the person's. */
  enableAgent(name: string, enabled: boolean, folder?: string): Promise<void>;
}

export const createAgentsSlice: SliceCreator<AgentsSlice> = (set, _get, { client }) => ({
  agents: [],
  agentsError: null,
  async loadAgents() {
    try {
      set({ agents: await client.request('agents.list', undefined), agentsError: null });
    } catch {
      // No folder yet: nothing to list.
    }
  },
  async enableAgent(name, enabled, folder) {
    try {
      set({ agents: await client.request('agents.enable', { name, enabled, ...(folder ? { folder } : {}) }), agentsError: null });
    } catch (err) {
      set({ agentsError: errorMessage(err) });
    }
  },
});
