// `loupe mcp [--cwd DIR] [--trust]`: the agent tools as an MCP server over stdio. One connection is one
// session (read-first tracking); writes go through the same modification log as the app.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { InvalidArgumentError } from '../errors';
import { createToolContext } from '../agent/tools/context';
import { createToolRegistry, type ToolRegistry } from '../agent/tools/registry';
import type { ToolContext, ToolResult } from '../agent/tools/types';
import { streamLogger } from '../agent/edit/logger';
import { LOUPE_VERSION } from '../host/version';
import { parseArgs } from './args';
import { mcpPermissionGate } from './mcpApprovals';
import { settleTrust } from './trust';
import { workspaceRoot } from './workspaceRoot';

export { workspaceRoot };

/** Every tool answers in this envelope; `data` and `error` are present when the tool sets them. */
const OUTPUT_SCHEMA = {
  type: 'object' as const,
  properties: {
    ok: { type: 'boolean' },
    output: { type: 'string' },
    data: { type: 'object' },
    error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' }, details: { type: 'object' } }, required: ['code', 'message'] },
  },
  required: ['ok', 'output'],
};

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
      description: tool.description,
      inputSchema: registry.inputSchema(tool) as { type: 'object' },
      outputSchema: OUTPUT_SCHEMA,
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
