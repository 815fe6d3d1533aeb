// Every tool says what it is (title, effect, the permission it asks for, whether the request's
// correlation id follows it, a one-line summary of a call, the shape of its data), and nothing
// outside the tools keeps its own list of tool names or guesses at argument names.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PERMISSION_KINDS } from '../../services/permissions/types';
import { createToolRegistry } from './registry';
import { kindOf, runsConcurrently, type Tool } from './types';

const registry = createToolRegistry();
const tools = registry.list();
const SRC = path.resolve(__dirname, '../../..');

type JsonSchema = { type?: string; properties?: Record<string, JsonSchema>; required?: string[]; enum?: unknown[]; prefixItems?: JsonSchema[]; items?: JsonSchema; minItems?: number; maxItems?: number; minimum?: number; maximum?: number; anyOf?: JsonSchema[]; const?: unknown };

/** Arguments that fit a tool's input schema: every required field, and some optional ones. */
function argsFor(schema: JsonSchema): fc.Arbitrary<Record<string, unknown>> {
  const value = (s: JsonSchema): fc.Arbitrary<unknown> => {
    if (s.enum) return fc.constantFrom(...s.enum);
    if (s.anyOf) return fc.oneof(...s.anyOf.map(value));
    if ('const' in s) return fc.constant(s.const);
    if (s.type === 'object') return argsFor(s);
    if (s.type === 'string') return fc.string({ minLength: 1, maxLength: 40 });
    if (s.type === 'integer' || s.type === 'number') return fc.integer({ min: Math.max(1, s.minimum ?? 1), max: Math.min(s.maximum ?? 500, 500) });
    if (s.type === 'boolean') return fc.boolean();
    if (s.type === 'array' && s.prefixItems) return fc.tuple(...s.prefixItems.map(value));
    // A tuple arrives as items plus its length (portableSchema.ts).
    if (s.type === 'array') return fc.array(value(s.items ?? { type: 'string' }), { minLength: s.minItems ?? 0, maxLength: Math.max(s.minItems ?? 0, Math.min(s.maxItems ?? 3, 3)) });
    return fc.constant(undefined);
  };
  const props = schema.properties ?? {};
  return fc.record(Object.fromEntries(Object.entries(props).map(([k, s]) => [k, value(s)])), { requiredKeys: schema.required ?? [] });
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [p] : [];
  });
}

describe('tools describe themselves', () => {
  it.each(tools.map((t) => [t.name, t] as const))('%s declares every fact', (_name, tool: Tool) => {
    expect(tool.title).toMatch(/^[A-Z][^\n]{2,40}$/);
    expect(['read', 'write', 'execute']).toContain(tool.effect);
    expect(tool.permission === null || PERMISSION_KINDS.includes(tool.permission)).toBe(true);
    for (const flag of [tool.correlated, tool.idempotent, tool.openWorld]) expect(typeof flag).toBe('boolean');
    expect(typeof tool.summary).toBe('function');
    expect(tool.outputSchema).toBeInstanceOf(z.ZodType);
    // A tool that writes asks for `edit`; one that runs a process asks for its own kind. Stopping
    // a process the agent itself started (process_kill) runs nothing, so it asks nothing; starting
    // a subagent asks nothing either: each of its calls asks through its own gate.
    if (tool.effect === 'write') expect(tool.permission).toBe('edit');
    if (tool.effect === 'execute' && tool.name !== 'process_kill' && !tool.delegates) expect(['bash', 'test']).toContain(tool.permission);
    if (tool.delegates) expect(tool.permission).toBeNull();
    // The loop fills in the correlation id: the schema must keep it.
    if (tool.correlated) expect(registry.inputSchema(tool)).toMatchObject({ properties: { correlation_id: { type: 'string' } } });
    const published = registry.outputSchema(tool) as { properties: { data: { anyOf?: unknown[] } } };
    expect(published).toMatchObject({
      type: 'object',
      properties: { ok: { type: 'boolean' }, output: { type: 'string' }, data: expect.any(Object), error: { type: 'object' } },
      required: ['ok', 'output'],
    });
    // Its data is one object shape, or one per kind of result (bash: in the foreground or the background).
    for (const shape of published.properties.data.anyOf ?? [published.properties.data]) expect(shape).toMatchObject({ type: 'object', properties: expect.any(Object) });
  });

  it('summarises any arguments that fit the schema in one non-empty line, and bad ones as empty', () => {
    for (const tool of tools) {
      fc.assert(
        fc.property(argsFor(registry.inputSchema(tool) as JsonSchema), (args) => {
          const line = registry.summarize(tool.name, args);
          expect(typeof line).toBe('string');
          expect(line.length).toBeGreaterThan(0);
        }),
        { numRuns: 60 },
      );
      expect(registry.summarize(tool.name, 'not an object')).toBe('');
    }
    expect(registry.summarize('no_such_tool', {})).toBe('');
    expect(registry.callFacts('no_such_tool', {})).toEqual({ title: 'no_such_tool', effect: 'execute', summary: '' });
  });

  it('says what the call is about: the command, the path, the URL', () => {
    expect(registry.summarize('bash', { command: 'npm test -- --watch=false', description: 'run the tests' })).toBe('npm test -- --watch=false');
    expect(registry.summarize('read_file', { path: 'src/a.ts', offset: 3 })).toBe('src/a.ts');
    expect(registry.summarize('code_modify', { file_path: 'src/a.ts', operation: 'replace', line_range: [3, 5], new_content: 'x' })).toBe('replace src/a.ts 3-5');
    expect(registry.summarize('webfetch', { url: 'https://example.com/x' })).toBe('https://example.com/x');
    expect(registry.summarize('grep', { pattern: 'TODO', path: 'src' })).toBe('TODO in src');
  });

  it('runs reads of the workspace together, never a write, a command or the network', () => {
    const together = tools.filter((t) => runsConcurrently(t)).map((t) => t.name).sort();
    // The process tools only read what a background process printed, or wait for it; subagents
    // run side by side, each through its own gate (three agents asked at once work at once).
    expect(together).toEqual(['agent', 'agent_stop', 'agent_wait', 'code_search', 'diagnostics', 'grep', 'list_files', 'modification_log', 'process_list', 'process_output', 'process_wait', 'read_file', 'skill']);
    expect(tools.filter((t) => t.correlated).map((t) => t.name).sort()).toEqual(['bash', 'code_modify', 'code_rollback', 'edit_file', 'run_tests', 'write_file']);
  });

  it('says what kind of action each call is, as an editor draws it: a search and a fetch by their own fact, the rest by effect', () => {
    const kinds = Object.fromEntries(tools.map((t) => [t.name, kindOf(registry.facts(t.name))]));
    expect(kinds).toMatchObject({ read_file: 'read', grep: 'search', code_search: 'search', list_files: 'search', webfetch: 'fetch', edit_file: 'edit', write_file: 'edit', bash: 'execute', run_tests: 'execute' });
    for (const t of tools) {
      if (t.effect === 'write') expect(kinds[t.name], t.name).toBe('edit');
      if (t.effect === 'execute') expect(kinds[t.name], t.name).toBe('execute');
      if (t.effect === 'read') expect(['read', 'search', 'fetch'], t.name).toContain(kinds[t.name]);
    }
    // A tool the registry does not know is run as something that executes.
    expect(kindOf(registry.facts('no_such_tool'))).toBe('execute');
  });

  it('leaves no list of tool names and no guessing at argument names outside the tools', () => {
    const names = tools.map((t) => t.name).join('|');
    const forbidden: [string, RegExp][] = [
      ['a list of tool names', new RegExp(`['"](${names})['"]\\s*,\\s*['"](${names})['"]`)],
      ['a test on a tool name', new RegExp(`\\b(tool|name)\\s*[!=]==?\\s*['"](${names})['"]`)],
      ['a name list constant', /\b(READ_ONLY_TOOLS|CORRELATED_TOOLS|WRITES)\b/],
      ['a guess at the argument that matters', /\b(\w+)\.(command|path|file_path|pattern|url)\s*\?\?\s*\1\.(command|path|file_path|pattern|url)\b/],
    ];
    // Services know nothing of tools (a shell named bash is not the tool); the tools are the facts.
    const consumers = sourceFiles(SRC).filter((f) => !f.includes(`${path.sep}agent${path.sep}tools${path.sep}`) && !f.includes(`${path.sep}services${path.sep}`));
    expect(consumers.length).toBeGreaterThan(50);
    const found = consumers.flatMap((f) => {
      const text = readFileSync(f, 'utf8');
      return forbidden.filter(([, re]) => re.test(text)).map(([what]) => `${path.relative(SRC, f)}: ${what}`);
    });
    expect(found).toEqual([]);
  });
});
