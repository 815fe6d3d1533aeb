// A tool call as hooks see it, in each dialect: Claude Code's names and input shapes for hooks
// written in Claude Code's files (from each tool's `claudeCode` fact; an MCP tool is
// `mcp__server__tool` on both sides), Loupe's own for hooks in Loupe's files. And back: a
// hook's `updatedInput` becomes the tool's arguments again (docs/architecture.md, "Hooks").
import type { HookDialect } from '../../services/config/hooksConfig';
import type { ToolRegistry } from '../tools/registry';
import type { ToolResult } from '../tools/types';

/** The tool's arguments as its schema reads them, or the raw ones when they do not fit. */
function parsed(registry: ToolRegistry, name: string, args: unknown): { ok: true; value: Record<string, unknown> } | { ok: false; value: unknown } {
  const tool = registry.get(name);
  const r = tool?.schema.safeParse(args ?? {});
  return r?.success ? { ok: true, value: r.data as Record<string, unknown> } : { ok: false, value: args };
}

/** Loupe's own bookkeeping arguments, which no hook writer expects. */
const withoutOwn = (args: unknown): Record<string, unknown> => {
  if (!args || typeof args !== 'object' || Array.isArray(args)) return {};
  const { correlation_id: _c, ...rest } = args as Record<string, unknown>;
  return rest;
};

export function hookToolName(registry: ToolRegistry, name: string, dialect: HookDialect): string {
  return dialect === 'claude' ? (registry.get(name)?.claudeCode?.name ?? name) : name;
}

export function hookToolInput(registry: ToolRegistry, name: string, args: unknown, dialect: HookDialect, root: string): Record<string, unknown> {
  const shape = registry.get(name)?.claudeCode;
  const p = parsed(registry, name, args);
  if (dialect === 'claude' && shape && p.ok) return shape.input(p.value as never, root);
  return withoutOwn(p.value);
}

/** A hook's `updatedInput` as the tool's arguments (the registry still checks them against the schema). */
export function argsFromHook(registry: ToolRegistry, name: string, updated: Record<string, unknown>, was: unknown, dialect: HookDialect, root: string): unknown {
  const shape = registry.get(name)?.claudeCode;
  const p = parsed(registry, name, was);
  const keep = was && typeof was === 'object' && 'correlation_id' in was ? { correlation_id: (was as { correlation_id: unknown }).correlation_id } : {};
  if (dialect === 'claude' && shape && p.ok) return { ...shape.args(updated, p.value as never, root), ...keep };
  // Loupe's dialect, or a tool Claude Code has no name for: the hook wrote the tool's own arguments.
  return { ...(p.value as object), ...updated, ...keep };
}

/** What a tool answered, as PostToolUse's `tool_response` (Claude Code's common fields where it has them). */
export function hookToolResponse(registry: ToolRegistry, name: string, input: Record<string, unknown>, result: ToolResult, dialect: HookDialect): Record<string, unknown> {
  const data = result.data ?? {};
  if (dialect === 'loupe') return { ok: result.ok, output: result.output, ...(result.data ? { data } : {}) };
  const claudeName = registry.get(name)?.claudeCode?.name;
  if (claudeName === 'Bash') return { stdout: result.output, stderr: '', interrupted: data.timed_out === true || data.aborted === true, isImage: false };
  if (typeof input.file_path === 'string') return { filePath: input.file_path, success: result.ok, output: result.output };
  return { output: result.output, ...(result.data ? { data } : {}) };
}
