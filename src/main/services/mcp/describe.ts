// A server's status in one line, for `loupe run`'s stderr and the log.
import type { McpServerView } from '../../../shared/contract';

export function describeServerLine(v: McpServerView): string {
  const what =
    v.status === 'ready'
      ? `ready with ${v.tools.length} tool${v.tools.length === 1 ? '' : 's'}${v.sandboxed ? ', sandboxed' : v.sandboxed === false ? ', outside the sandbox' : ''}`
      : v.disabled
        ? (v.detail ?? 'disabled')
        : `${v.status}${v.detail ? `: ${v.detail}` : ''}`;
  return `loupe: MCP server ${v.name} (${v.source === 'user' ? 'your settings' : v.file}): ${what}`;
}
