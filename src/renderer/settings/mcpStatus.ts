// The words of an MCP server's row. Its `data-status` is the contract's fixed vocabulary; the words
// say more: a disabled server (status pending) says "disabled", a ready one counts its tools.
import type { McpServerView } from '../../shared/contract';

const STATUS_WORDS: Record<McpServerView['status'], string> = { connecting: 'connecting', ready: 'ready', failed: 'failed', pending: 'waiting for you' };

export function statusWords(v: Pick<McpServerView, 'status' | 'disabled' | 'tools'>): string {
  if (v.disabled) return 'disabled';
  return v.status === 'ready' ? `ready with ${v.tools.length} tool${v.tools.length === 1 ? '' : 's'}` : STATUS_WORDS[v.status];
}
