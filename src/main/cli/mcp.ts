// `loupe mcp [--cwd DIR] [--trust]`: the agent tools as an MCP server over stdio. One connection is one
// session (read-first tracking); writes go through the same modification log as the app.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { InvalidArgumentError } from '../errors';
import { createToolContext, newSessionId, type ToolContextOptions } from '../agent/tools/context';
import { createToolRegistry, envelope, type ToolRegistry } from '../agent/tools/registry';
import type { ToolFacts, ToolResult } from '../agent/tools/types';
import { userLog } from '../services/log/userLog';
import { LlmEditCorrector } from '../agent/edit/corrector';
import { createJsonChat } from '../agent/llm/jsonChat';
import { LlmSettingsFile, llmConfigFromSettings } from '../host/llmSettings';
import { describeProblem } from '../services/permissions/errors';
import type { ConfigProblem } from '../services/permissions/projectConfig';
import { defaultConfigDir } from '../services/settings/configDir';
import { systemKeyStore } from '../services/settings/keyStore';
import { LOUPE_VERSION } from '../host/version';
import { FileSession } from '../services/files/readTracker';
import { composeWorkspace, openUserSettings, type Asker, type WorkspaceServices } from '../workspace/compose';
import { parseArgs } from './args';
import { elicitationAsker } from './mcpApprovals';
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
    structuredContent: envelope(result),
    ...(result.ok ? {} : { isError: true }),
    // Server-side time of the tool itself, so benchmarks can leave the transport out.
    _meta: { 'loupe/duration_ms': durationMs },
  };
}

/**
 * One connection, one workspace: `compose` is the composition root given how this server asks
 * (the client, through elicitation); `tools` is the connection's read tracking and corrector.
 */
export function createMcpServer(registry: ToolRegistry, compose: (asker: Asker) => WorkspaceServices, tools: Omit<ToolContextOptions, 'signal'> = {}): Server {
  const server = new Server({ name: 'loupe', version: LOUPE_VERSION }, { capabilities: { tools: {} } });
  const { signal: _unused, ...base } = createToolContext(compose(elicitationAsker(server)), tools);
  // Read now, so the config's problems are said when the server starts, not at the first call.
  void base.permissions.project().catch(() => undefined);
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
  // Problems in the user's settings and the project's config are said once, as `loupe run` says them.
  // stdout carries the protocol; logs go to the user's log file and to stderr.
  const { logger } = userLog({ configDir: defaultConfigDir(), stderr: 'always' });
  // Said once on stderr in the same words as `loupe run`; the file gets it as a record.
  const fileOnly = userLog({ configDir: defaultConfigDir(), stderr: 'never' }).logger;
  const report = (p: ConfigProblem) => {
    process.stderr.write(`loupe: ${describeProblem(p)}\n`);
    fileOnly.warn('config.problem', { ...p });
  };
  const user = openUserSettings(defaultConfigDir(), report);
  await settleTrust(root, flags.trust === true, (line) => process.stderr.write(`${line}\n`), user);
  const session = new FileSession(newSessionId());
  // The model the app's settings name (the edit corrector's), each field overridden by the environment.
  const llm = await llmConfigFromSettings(new LlmSettingsFile(user, { keyStore: systemKeyStore(defaultConfigDir(), process.platform, process.env) }), process.env, (s) =>
    process.stderr.write(`loupe mcp: ${s}\n`),
  );
  const corrector = llm ? new LlmEditCorrector(createJsonChat(llm), logger) : null;
  const composed: WorkspaceServices[] = [];
  const compose = (asker: Asker) => {
    const services = composeWorkspace({ root, user, asker, logger, reportConfig: report });
    composed.push(services);
    return services;
  };
  // No agent loop runs here, so no tool that starts subagents is offered.
  const server = createMcpServer(createToolRegistry().only((t) => !t.delegates), compose, { session, corrector, logger });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => (server.onclose = resolve));
  // The client went away (its end of stdin closed): close, which stops every background process
  // the tools started; otherwise they would keep this process, and themselves, alive.
  process.stdin.once('end', () => void server.close());
  await server.connect(transport);
  logger.info('mcp.ready', { root, session: session.id, llm: llm ? llm.model : 'none' });
  await closed;
  await Promise.all(composed.map((s) => s.dispose()));
}
