// Every tool the agent and `loupe mcp` can call. A new tool is one file (its facts, schemas and
// run) and one line in createToolRegistry.
import { z } from 'zod';
import { LoupeError, toWireError } from '../../errors';
import { editFileTool } from './editFile';
import { readFileTool } from './readFile';
import type { Tool, ToolContext, ToolEffect, ToolFacts, ToolFamily, ToolResult } from './types';
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
import { diagnosticsTool } from './diagnostics';
import { processListTool } from './processList';
import { processOutputTool } from './processOutput';
import { processKillTool } from './processKill';
import { processWaitTool } from './processWait';
import { portableSchema } from './portableSchema';
import { agentTool } from './agent';
import { agentWaitTool } from './agentWait';
import { agentStopTool } from './agentStop';
import type { Logger } from '../../services/log/logger';
import { schemaCheck } from './schemaCheck';
import { skillTool } from './skill';

export function failure(err: unknown): ToolResult {
  const e = toWireError(err);
  // The person reads the error once, on its own line: the output only repeats it for the model.
  return { ok: false, output: `Error [${e.code}]: ${e.message}`, for_person: '', error: e };
}

function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length ? i.path.join('.') : 'arguments'}: ${i.message}`).join('; ');
}

function jsonSchema(schema: z.ZodType, io: 'input' | 'output', target?: 'draft-7'): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, ...(target ? { target } : {}) }) as Record<string, unknown>;
  return rest;
}

/** What every call returns: the model's text, the tool's data, and a coded error when it failed. */
export const resultSchema = <O extends z.ZodType>(data: O) =>
  z.object({
    ok: z.boolean(),
    output: z.string().describe('What the model sees.'),
    data: data.optional(),
    error: z.looseObject({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()).optional() }).optional(),
  });

/** The envelope of a result as it crosses a wire (MCP structuredContent): the fields `resultSchema` names, nothing else. */
export function envelope(result: ToolResult): Record<string, unknown> {
  // A program (or its model) reads this: the model's words, never the person's (`for_person`).
  const error = result.error ? (({ for_person: _person, ...e }) => e)(result.error) : undefined;
  return { ok: result.ok, output: result.output, ...(result.data !== undefined ? { data: result.data } : {}), ...(error ? { error } : {}) };
}

/**
 * The published output schema of each data schema, keyed by the zod schema, a constant of its
 * tool's module (MCP tools are rebuilt at each listing and share theirs).
 */
const published = new WeakMap<z.ZodType, Record<string, unknown>>();

/**
 * The one place where what a tool returns meets what it declares: every result is checked
 * against the outputSchema `loupe mcp` publishes, with the validator MCP clients use (the SDK's),
 * so a result that would break a client's call is caught here, for every caller. Such a result is
 * a bug: it is logged (`tool.result_invalid`) and answered without its data, keeping the text.
 */
async function checkResult(tool: Tool, result: ToolResult, logger: Logger): Promise<ToolResult> {
  const check = await schemaCheck(publishedSchema(tool.outputSchema));
  const verdict = check?.(envelope(result)) ?? { valid: true };
  if (verdict.valid) return result;
  logger.error('tool.result_invalid', { tool: tool.name, problems: verdict.errorMessage, ok: result.ok });
  const { data: _broken, error, ...rest } = result;
  const details = error?.details && typeof error.details === 'object' && !Array.isArray(error.details) ? { details: error.details } : {};
  return { ...rest, ok: result.ok === true, output: String(result.output ?? ''), ...(error ? { error: { code: error.code, message: String(error.message), ...details } } : {}) };
}

/** JSON Schema of the envelope every call answers with, `data` in this shape. */
function publishedSchema(data: z.ZodType): Record<string, unknown> {
  let schema = published.get(data);
  if (!schema) {
    schema = portableSchema(jsonSchema(resultSchema(data), 'output', 'draft-7'));
    published.set(data, schema);
  }
  return schema;
}

const isFamily = (t: Tool | ToolFamily): t is ToolFamily => !('run' in t);

export class ToolRegistry {
  /**
   * @param tools Loupe's own tools.
   * @param extra Tools known only at run time (a workspace's MCP servers), asked for at each use.
   * @param offered Which tools the model is offered (a subagent's narrowing); absent: all.
   */
  constructor(
    private readonly tools = new Map<string, Tool>(),
    private readonly extra: () => (Tool | ToolFamily)[] = () => [],
    private readonly offered?: (tool: Tool) => boolean,
  ) {}

  /** The same tools plus those `extra` gives at each use (a workspace's MCP servers' tools, and each server's family). */
  withTools(extra: () => (Tool | ToolFamily)[]): ToolRegistry {
    return new ToolRegistry(this.tools, extra, this.offered);
  }

  /**
   * The same tools, offering only those `keep` accepts (within what this one offers). A tool left
   * out is still known by name, so a call to it reaches the permission layer, which refuses it
   * (a subagent's gate is narrowed the same way).
   */
  only(keep: (tool: Tool) => boolean): ToolRegistry {
    const mine = this.offered;
    return new ToolRegistry(this.tools, this.extra, mine ? (t) => mine(t) && keep(t) : keep);
  }

  register(tool: Tool): this {
    if (this.tools.has(tool.name)) throw new Error(`tool ${tool.name} is registered twice`);
    this.tools.set(tool.name, tool);
    return this;
  }

  /** The tools offered to the model, in registry order. */
  list(): Tool[] {
    const own = [...this.tools.values()];
    const all = [...own, ...this.extra().filter((t): t is Tool => !isFamily(t) && !this.tools.has(t.name))];
    const offered = this.offered;
    return offered ? all.filter((t) => offered(t)) : all;
  }

  /** The tool of this name: Loupe's own, a listed one, or else the family whose prefix it has (the longest). */
  get(name: string): Tool | undefined {
    const own = this.tools.get(name);
    if (own) return own;
    const extra = this.extra();
    const listed = extra.find((t): t is Tool => !isFamily(t) && t.name === name);
    if (listed) return listed;
    const family = extra.filter((t): t is ToolFamily => isFamily(t) && name.startsWith(t.prefix) && name.length > t.prefix.length).sort((a, b) => b.prefix.length - a.prefix.length)[0];
    return family?.tool(name);
  }

  /** JSON Schema of a tool's arguments, as MCP and the chat API want it: the portable subset (portableSchema.ts). */
  inputSchema(tool: Tool): Record<string, unknown> {
    return portableSchema(tool.jsonSchema ?? jsonSchema(tool.schema, 'input'), { root: true });
  }

  /**
   * JSON Schema of the envelope every call answers with, `data` in the tool's own shape. Draft 7:
   * what MCP clients validate structuredContent with (a tuple in 2020-12 terms fails there).
   */
  outputSchema(tool: Tool): Record<string, unknown> {
    return publishedSchema(tool.outputSchema);
  }

  /** The tool's facts for a name the model used; a stand-in for a name it made up. */
  facts(name: string): ToolFacts {
    const tool = this.get(name);
    if (!tool) return { name, title: name, description: '', effect: 'execute', permission: null, correlated: false, idempotent: false, openWorld: true };
    const { name: _n, title, description, effect, permission, correlated, idempotent, openWorld, delegates, guidance, kind } = tool;
    return { name, title, description, effect, permission, correlated, idempotent, openWorld, ...(delegates ? { delegates } : {}), ...(guidance ? { guidance } : {}), ...(kind ? { kind } : {}) };
  }

  /** What a chat card or a `loupe run` line shows of one call. */
  callFacts(name: string, args: unknown): { title: string; effect: ToolEffect; summary: string } {
    const { title, effect } = this.facts(name);
    return { title, effect, summary: this.summarize(name, args) };
  }

  /** The tool's one line for these arguments; empty while they do not fit its schema. */
  summarize(name: string, args: unknown): string {
    const tool = this.get(name);
    const parsed = tool?.schema.safeParse(args ?? {});
    if (!tool || !parsed?.success) return '';
    try {
      return tool.summary(parsed.data);
    } catch {
      return '';
    }
  }

  /** The workspace paths a call works in (its tool's `paths` fact); none while the arguments do not fit. */
  workPaths(name: string, args: unknown): string[] {
    const tool = this.get(name);
    const parsed = tool?.paths && tool.schema.safeParse(args ?? {});
    if (!tool?.paths || !parsed?.success) return [];
    try {
      return tool.paths(parsed.data).filter((p): p is string => typeof p === 'string' && p.length > 0);
    } catch {
      return [];
    }
  }

  /** Validates, runs, and turns anything thrown into a failed result: a tool call never throws. */
  async call(name: string, args: unknown, ctx: ToolContext): Promise<ToolResult> {
    const tool = this.get(name);
    if (!tool) return failure(new LoupeError('INVALID_ARGUMENT', `Unknown tool: ${name}. Available: ${this.list().map((t) => t.name).join(', ')}.`));
    const parsed = tool.schema.safeParse(args ?? {});
    if (!parsed.success) return failure(new LoupeError('INVALID_ARGUMENT', `Invalid arguments for ${name}: ${describeIssues(parsed.error)}.`));
    let result: ToolResult;
    try {
      result = await tool.run(parsed.data, ctx);
    } catch (err) {
      // A LoupeError is an answer the model can act on; anything else is a bug whose stack is kept.
      if (!(err instanceof LoupeError)) ctx.logger.error('tool.crashed', { tool: name, error: err });
      result = failure(err);
    }
    return checkResult(tool, result, ctx.logger);
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
    .register(modificationLogTool)
    .register(processListTool)
    .register(processOutputTool)
    .register(processKillTool)
    .register(processWaitTool)
    .register(diagnosticsTool)
    .register(skillTool)
    .register(agentTool)
    .register(agentWaitTool)
    .register(agentStopTool);
}
