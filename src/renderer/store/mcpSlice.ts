import type { McpServerView } from '../../shared/contract';
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
  };
};
