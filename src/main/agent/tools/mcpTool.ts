// A tool of one of the person's MCP servers, as the model sees it (docs/architecture.md, "MCP
// servers"): `mcp__<server>__<tool>`, its input schema as the server published it (the registry
// makes it portable like Loupe's own), its facts from the server's annotations (a tool without
// `readOnlyHint` counts as writing). The server receives exactly the model's arguments, checked
// first against its own inputSchema. A call asks through the one gate (kind `mcp`, pattern
// `server/tool`, the arguments on the card), and a call that may write runs between two snapshots
// of the workspace, so what the server wrote itself is one modification attributed to the tool.
// A server that lists no tools now (down, starting, waiting for the person) still owns its names:
// a call of one waits while it starts, then goes through or answers MCP_SERVER_UNAVAILABLE.
import { z } from 'zod';
import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { McpServers } from '../../services/mcp/manager';
import { McpToolError } from '../../services/mcp/errors';
import { AbortedError, InvalidArgumentError } from '../../errors';
import { base64Bytes, sendableImage } from '../llm/images';
import { changesData, changesSchema, describeChanges } from './commandChanges';
import type { ToolOutputHook } from './bash';
import { schemaCheck } from './schemaCheck';
import { defineTool, type Tool, type ToolContext, type ToolFamily, type ToolImage, type ToolResult } from './types';

/** Text beyond this is cut here (the loop caps again for the model's context). */
const MAX_OUTPUT_CHARS = 100_000;
const RESOURCE_CHARS = 2000;

/** What chat APIs accept as a tool name (OpenAI: ^[a-zA-Z0-9_-]{1,64}$). */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
}

const outputSchema = z.looseObject({
  server: z.string(),
  tool: z.string(),
  images: z.array(z.looseObject({ mime_type: z.string(), bytes: z.number().int() })).optional().describe('Images in the result (summarised in the text; shown to a model that takes images).'),
  structured: z.unknown().optional().describe("The server's structuredContent, as it sent it."),
  changes: changesSchema.optional(),
});

/**
 * The call's result as text for the model: text as it is, images and resources summarised;
 * `sendable`: the images a model that takes images is shown besides (agentLoop.ts).
 */
export function describeResult(r: CallToolResult): { text: string; images: { mime_type: string; bytes: number }[]; sendable: ToolImage[] } {
  const images: { mime_type: string; bytes: number }[] = [];
  const sendable: ToolImage[] = [];
  const parts = (r.content ?? []).map((c) => {
    switch (c.type) {
      case 'text':
        return c.text;
      case 'image':
      case 'audio': {
        const bytes = base64Bytes(c.data);
        if (c.type === 'image') images.push({ mime_type: c.mimeType, bytes });
        if (c.type === 'image' && sendableImage(c.mimeType, c.data)) sendable.push({ mime_type: c.mimeType, data: c.data });
        return `[${c.type}: ${c.mimeType}, ${bytes} bytes]`;
      }
      case 'resource': {
        const res = c.resource;
        const body = 'text' in res && typeof res.text === 'string' ? `\n${res.text.length > RESOURCE_CHARS ? `${res.text.slice(0, RESOURCE_CHARS)}… (${res.text.length} characters)` : res.text}` : ` (binary, ${res.mimeType ?? 'unknown type'})`;
        return `[resource ${res.uri}]${body}`;
      }
      case 'resource_link':
        return `[resource link ${c.uri}${c.name ? ` "${c.name}"` : ''}${c.mimeType ? ` (${c.mimeType})` : ''}]`;
      default:
        return `[${(c as { type: string }).type}]`;
    }
  });
  if (!parts.length && r.structuredContent !== undefined) parts.push(JSON.stringify(r.structuredContent, null, 2));
  let text = parts.join('\n');
  if (text.length > MAX_OUTPUT_CHARS) text = `${text.slice(0, MAX_OUTPUT_CHARS)}\n[output cut at ${MAX_OUTPUT_CHARS} of ${text.length} characters]`;
  return { text, images, sendable };
}

/** One Loupe tool for one server tool; `session`: the chat session whose own server it may be. */
export function mcpTool(mcp: McpServers, server: string, spec: McpTool, session?: string): Tool {
  const readOnly = spec.annotations?.readOnlyHint === true;
  const name = mcpToolName(server, spec.name);
  const label = `${server}/${spec.name}`;
  return defineTool({
    name,
    title: `${spec.annotations?.title ?? spec.title ?? spec.name} (MCP ${server})`,
    description: spec.description ?? `The tool ${spec.name} of the MCP server ${server}.`,
    effect: readOnly ? 'read' : 'write',
    permission: 'mcp',
    correlated: !readOnly,
    idempotent: spec.annotations?.idempotentHint === true,
    openWorld: spec.annotations?.openWorldHint !== false,
    schema: z.record(z.string(), z.unknown()),
    jsonSchema: spec.inputSchema as Record<string, unknown>,
    outputSchema,
    summary: (args) => `${label} ${JSON.stringify(args)}`,
    async run(args, ctx: ToolContext & ToolOutputHook): Promise<ToolResult> {
      // Before anything is asked or sent: a call the server would refuse never reaches it.
      const check = await schemaCheck(spec.inputSchema);
      const verdict = check?.(args);
      if (verdict && !verdict.valid) throw new InvalidArgumentError(`Invalid arguments for ${name}: ${(verdict.errorMessage ?? 'they do not fit its schema').replace(/\bdata(?=[/ ])/g, 'arguments')}.`);
      await ctx.permissions.authorize({
        query: { kind: 'mcp', server, tool: spec.name, readOnly },
        tool: name,
        summary: `MCP ${label}`,
        details: JSON.stringify(args, null, 2),
        signal: ctx.signal,
      });
      // A server's progress reports show on the chat's card as they come.
      const onProgress = ctx.onToolOutput && ((done: number, total: number | undefined, message: string | undefined) => ctx.onToolOutput!(name, `${message ?? 'progress'} (${done}${total ? ` of ${total}` : ''})\n`));
      // A server that wants more access for this call: the page to open shows on the call's card too.
      const onSignIn = ctx.onToolOutput && ((url: string) => ctx.onToolOutput!(name, `Waiting for you to sign in to ${server} again (it asks for more access): open ${url}\n`));
      const call = () => mcp.call(server, spec.name, args, { signal: ctx.signal, ...(onProgress ? { onProgress } : {}), ...(onSignIn ? { onSignIn } : {}), ...(session ? { session } : {}) });
      // A server on this machine may write the workspace itself: what it wrote is recorded.
      const { value: r, capture } =
        !readOnly && mcp.local(server, session)
          ? await ctx.captures.around({ tool: name, command: label, ...ctx.session.writer, correlationId: ctx.correlationId, reason: `MCP ${label}`, signal: ctx.signal }, call)
          : { value: await call(), capture: null };
      const { text, images, sendable } = describeResult(r);
      const changed = capture ? describeChanges(capture) : '';
      const output = text + (changed ? `\n${changed}` : '');
      const data = {
        server,
        tool: spec.name,
        ...(images.length ? { images } : {}),
        ...(r.structuredContent !== undefined ? { structured: r.structuredContent } : {}),
        ...(capture ? { changes: changesData(capture) } : {}),
      };
      if (r.isError) {
        const e = new McpToolError(server, spec.name, text || 'the server reported an error');
        return { ok: false, output, data, error: { code: e.code, message: e.message } };
      }
      return { ok: true, output, data, ...(sendable.length ? { images: sendable } : {}) };
    },
  });
}

/**
 * The names of one server that no listed tool has: a call waits while the server starts (at
 * most its call timeout), then runs the tool it lists by that name, or says the server is down
 * (its status, what it waits for, the end of its stderr), or that it has no such tool.
 */
function serverFamily(mcp: McpServers, server: string, session?: string): ToolFamily {
  const prefix = mcpToolName(server, '');
  return {
    prefix,
    tool: (name) =>
      defineTool({
        name,
        title: `${name.slice(prefix.length)} (MCP ${server})`,
        description: `A tool of the MCP server ${server}, which lists none by this name now.`,
        // Unknown until the server says: counted as writing, like a tool without readOnlyHint.
        effect: 'write',
        permission: 'mcp',
        correlated: false,
        idempotent: false,
        openWorld: true,
        schema: z.record(z.string(), z.unknown()),
        outputSchema,
        summary: (args) => `${server}/${name.slice(prefix.length)} ${JSON.stringify(args)}`,
        async run(args, ctx): Promise<ToolResult> {
          await mcp.settled(server, ctx.signal, session);
          if (ctx.signal.aborted) throw new AbortedError(`The call to ${name}`);
          const listed = mcp.tools(session).find((t) => t.server === server && mcpToolName(server, t.tool.name) === name);
          if (listed) return mcpTool(mcp, server, listed.tool, session).run(args, ctx);
          const ready = mcp.list().find((v) => v.name === server)?.status === 'ready';
          if (!ready) throw mcp.unavailable(server, session);
          const names = mcp.tools(session).filter((t) => t.server === server).map((t) => mcpToolName(server, t.tool.name));
          throw new InvalidArgumentError(`The MCP server "${server}" has no tool ${name}. Its tools: ${names.join(', ') || 'none'}.`);
        },
      }),
  };
}

/** Every tool of every server that has listed some, as Loupe tools (with `session`, that session's own servers' too), and each server's family for the names it has not listed. */
export function mcpTools(mcp: McpServers, session?: string): (Tool | ToolFamily)[] {
  return [...mcp.tools(session).map((t) => mcpTool(mcp, t.server, t.tool, session)), ...mcp.names(session).map((server) => serverFamily(mcp, server, session))];
}
