import type { McpServerConfigView, McpServerView } from '../../shared/contract';
import { errorMessage } from '../host-client';
import type { SliceCreator } from './types';

/** The open folder's MCP servers, as the settings list them. */
export interface McpSlice {
  mcpServers: McpServerView[];
  mcpError: string | null;
  loadMcpServers(): Promise<void>;
  mcpChanged(list: McpServerView[]): void;
  restartMcpServer(name: string): Promise<void>;
  setMcpServerDisabled(name: string, disabled: boolean): Promise<void>;
  /** Adds (`previous` absent) or changes one of the person's own servers; resolves with what went wrong, or null. */
  saveMcpServer(name: string, previous: string | null, server: McpServerConfigView): Promise<string | null>;
  removeMcpServer(name: string): Promise<void>;
}

export const createMcpSlice: SliceCreator<McpSlice> = (set, _get, { client }) => {
  const act = async (run: () => Promise<McpServerView[]>) => {
    try {
      set({ mcpServers: await run(), mcpError: null });
    } catch (err) {
      set({ mcpError: errorMessage(err) });
    }
  };
  return {
    mcpServers: [],
    mcpError: null,
    async loadMcpServers() {
      try {
        set({ mcpServers: await client.request('mcp.list', undefined) });
      } catch {
        // No workspace yet: the list arrives with mcp.changed.
      }
    },
    mcpChanged(list) {
      set({ mcpServers: list });
    },
    restartMcpServer: (name) => act(() => client.request('mcp.restart', { name })),
    setMcpServerDisabled: (name, disabled) => act(() => client.request('mcp.setDisabled', { name, disabled })),
    async saveMcpServer(name, previous, server) {
      try {
        set({ mcpServers: await client.request('mcp.save', { name, ...(previous !== null ? { previous_name: previous } : {}), server }), mcpError: null });
        return null;
      } catch (err) {
        return errorMessage(err);
      }
    },
    removeMcpServer: (name) => act(() => client.request('mcp.remove', { name })),
  };
};
