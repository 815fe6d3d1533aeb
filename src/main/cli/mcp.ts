// `loupe mcp [--cwd DIR] [--trust]`: the agent tools as an MCP server over stdio. One connection is one
// session (read-first tracking); writes go through the same modification log as the app.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { InvalidArgumentError } from '../errors';
import { createToolContext } from '../agent/tools/context';
import { createToolRegistry, type ToolRegistry } from '../agent/tools/registry';
import type { ToolContext, ToolFacts, ToolResult } from '../agent/tools/types';
import { streamLogger } from '../agent/edit/logger';
import { LOUPE_VERSION } from '../host/version';
import { parseArgs } from './args';
import { mcpPermissionGate } from './mcpApprovals';
import { settleTrust } from './trust';
import { workspaceRoot } from './workspaceRoot';

export { workspaceRoot };

/** A tool's facts as MCP hints: what a client may run unasked, in parallel, or again. */
export function toolAnnotations(tool: ToolFacts): ToolAnnotations {
  return {
    title: tool.title,
    readOnlyHint: tool.effect === 'read',
    destructiveHint: tool.effect !== 'read',
    idempotentHint: tool.idempotent,
    openWorldHint: tool.openWorld,
  };
}

export function toCallToolResult(result: ToolResult, durationMs: number): CallToolResult {
  return {
    content: [{ type: 'text', text: result.output }],
    structuredContent: { ...result },
    ...(result.ok ? {} : { isError: true }),
    // Server-side time of the tool itself, so benchmarks can leave the transport out.
    _meta: { 'loupe/duration_ms': durationMs },
  };
}

export function createMcpServer(registry: ToolRegistry, context: Omit<ToolContext, 'signal'>): Server {
  const server = new Server({ name: 'loupe', version: LOUPE_VERSION }, { capabilities: { tools: {} } });
  const base = { permissions: mcpPermissionGate(server, context.root), ...context };
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: registry.list().map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: registry.inputSchema(tool) as { type: 'object' },
      outputSchema: registry.outputSchema(tool) as { type: 'object' },
      annotations: toolAnnotations(tool),
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const started = performance.now();
    const result = await registry.call(req.params.name, req.params.arguments ?? {}, { ...base, signal: extra.signal });
    return toCallToolResult(result, performance.now() - started);
  });
  return server;
}

export async function runMcp(args: string[]): Promise<void> {
  const { flags, positionals } = parseArgs(args, { cwd: 'string', trust: 'boolean' });
  if (positionals.length) throw new InvalidArgumentError(`Unexpected argument: ${positionals[0]}. Usage: loupe mcp [--cwd DIR] [--trust]`);
  const root = await workspaceRoot(typeof flags.cwd === 'string' ? flags.cwd : undefined);
  await settleTrust(root, flags.trust === true, (line) => process.stderr.write(`${line}\n`));
  // stdout carries the protocol; logs go to stderr.
  const logger = streamLogger((line) => process.stderr.write(line));
  const { signal: _unused, ...base } = createToolContext({ root, logger });
  const server = createMcpServer(createToolRegistry(), base);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => (server.onclose = resolve));
  await server.connect(transport);
  logger.info('mcp.ready', { root, session: base.session.id, llm: base.corrector ? 'configured' : 'none' });
  await closed;
}
