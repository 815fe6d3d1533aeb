// The prompt's tool list, generated from the registry's facts: a tool added to the registry is
// described by adding it, and a tool removed is never mentioned (test/agent/systemPrompt.test.ts).
import type { ToolRegistry } from '../tools/registry';
import type { Tool } from '../tools/types';

const EFFECT = { read: 'reads', write: 'changes files', execute: 'runs a process' } as const;

export const firstSentence = (text: string): string => text.match(/^.*?[.!?](?=\s|$)/s)?.[0] ?? text;

function line(t: Tool): string {
  const facts = [EFFECT[t.effect], t.openWorld ? 'reaches beyond the workspace' : '', t.permission ? `\`${t.permission}\` permission` : 'never asks'].filter(Boolean).join('; ');
  return `- \`${t.name}\` (${facts}): ${firstSentence(t.description).replace(/\s+/g, ' ')}${t.guidance ? ` ${t.guidance}` : ''}`;
}

export function toolList(registry: ToolRegistry): string {
  return ['# Tools', ...registry.list().map(line)].join('\n');
}

/** Tools whose arguments include `name` (the sandbox guidance names the ones that take `sandbox`). */
export function toolsTaking(registry: ToolRegistry, name: string): string[] {
  return registry
    .list()
    .filter((t) => Object.hasOwn((registry.inputSchema(t).properties as Record<string, unknown> | undefined) ?? {}, name))
    .map((t) => t.name);
}

/** A real call's shape for the small-model adjustment: the first read tool with required string arguments. */
export function exampleCall(registry: ToolRegistry): { name: string; args: string } | null {
  for (const t of registry.list().filter((x) => x.effect === 'read')) {
    const schema = registry.inputSchema(t) as { properties?: Record<string, { type?: string }>; required?: string[] };
    const required = schema.required ?? [];
    if (!required.length || !required.every((k) => schema.properties?.[k]?.type === 'string')) continue;
    return { name: t.name, args: JSON.stringify(Object.fromEntries(required.map((k) => [k, `<${k}>`]))) };
  }
  return null;
}
