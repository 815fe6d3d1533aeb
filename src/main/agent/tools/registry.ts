// Every tool the agent and `loupe mcp` can call. Later issues register theirs here too.
import { z } from 'zod';
import { LoupeError, toWireError } from '../../errors';
import { editFileTool } from './editFile';
import { readFileTool } from './readFile';
import type { Tool, ToolContext, ToolResult } from './types';
import { writeFileTool } from './writeFile';
import { grepTool } from './grep';
import { codeSearchTool } from './codeSearch';
import { listFilesTool } from './listFiles';
import { bashTool } from './bash';
import { webfetchTool } from './webfetch';
import { codeModifyTool } from './codeModify';
import { runTestsTool } from './runTests';
import { codeRollbackTool } from './codeRollback';
import { modificationLogTool } from './modificationLog';

export function failure(err: unknown): ToolResult {
  const e = toWireError(err);
  return { ok: false, output: `Error [${e.code}]: ${e.message}`, error: e };
}

function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length ? i.path.join('.') : 'arguments'}: ${i.message}`).join('; ');
}

export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();

  register(tool: Tool): this {
    if (this.tools.has(tool.name)) throw new Error(`tool ${tool.name} is registered twice`);
    this.tools.set(tool.name, tool);
    return this;
  }

  list(): Tool[] {
    return [...this.tools.values()];
  }

  get(name: string): Tool | undefined {
    return this.tools.get(name);
  }

  /** JSON Schema of a tool's arguments, as MCP and the chat API want it. */
  inputSchema(tool: Tool): Record<string, unknown> {
    const { $schema: _drop, ...schema } = z.toJSONSchema(tool.schema, { io: 'input' }) as Record<string, unknown>;
    return schema;
  }

  /** Validates, runs, and turns anything thrown into a failed result: a tool call never throws. */
  async call(name: string, args: unknown, ctx: ToolContext): Promise<ToolResult> {
    const tool = this.tools.get(name);
    if (!tool) return failure(new LoupeError('INVALID_ARGUMENT', `Unknown tool: ${name}. Available: ${[...this.tools.keys()].join(', ')}.`));
    const parsed = tool.schema.safeParse(args ?? {});
    if (!parsed.success) return failure(new LoupeError('INVALID_ARGUMENT', `Invalid arguments for ${name}: ${describeIssues(parsed.error)}.`));
    try {
      return await tool.run(parsed.data, ctx);
    } catch (err) {
      if (!(err instanceof LoupeError)) ctx.logger.warn('tool.crashed', { tool: name, error: (err as Error)?.stack ?? String(err) });
      return failure(err);
    }
  }
}

export function createToolRegistry(): ToolRegistry {
  return new ToolRegistry().register(readFileTool).register(writeFileTool).register(editFileTool)
    .register(grepTool)
    .register(codeSearchTool)
    .register(listFilesTool)
    .register(bashTool)
    .register(webfetchTool)
    .register(codeModifyTool)
    .register(runTestsTool)
    .register(codeRollbackTool)
    .register(modificationLogTool);
}
