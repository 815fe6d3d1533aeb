import { describe, expect, it } from 'vitest';
import type { AgentDefinition, DefinitionDialect } from '../../services/agents/definitions';
import { createToolRegistry } from '../tools/registry';
import type { ScopeTool } from './scope';
import { childScope } from './scope';

const PARENT: ScopeTool[] = [
  ...createToolRegistry().list(),
  { name: 'mcp__db__query', effect: 'read', permission: 'mcp' },
  { name: 'mcp__db__drop', effect: 'write', permission: 'mcp' },
  { name: 'mcp__deploy__run', effect: 'execute', permission: 'mcp' },
];

const def = (tools: string[] | null, more: Partial<AgentDefinition> = {}, dialect: DefinitionDialect = 'claude'): AgentDefinition => ({
  name: 'x',
  description: 'x',
  tools,
  disallowedTools: [],
  deniedKinds: [],
  readOnly: false,
  instructions: '',
  dialect,
  path: 'x.md',
  ...more,
});

const scope = (d: AgentDefinition, opts: { readOnly?: boolean; canDelegate?: boolean } = {}) =>
  childScope({ definition: d, parent: PARENT, parentAllowed: null, parentKinds: null, parentReadOnly: opts.readOnly ?? false, canDelegate: opts.canDelegate ?? true });
const names = (s: ReturnType<typeof scope>) => [...s.tools].sort();

describe('a child’s tools, read in its definition’s words', () => {
  it("Claude's Read, Grep, Glob: the tools that read, and those that ask nothing", () => {
    const s = scope(def(['Read', 'Grep', 'Glob']));
    expect(names(s)).toEqual(['code_search', 'diagnostics', 'grep', 'list_files', 'modification_log', 'process_kill', 'process_list', 'process_output', 'process_wait', 'read_file', 'skill']);
    expect([...s.kinds]).toEqual(['read']);
  });

  it("Claude's Bash runs commands and tests; Edit and Write change files; Task starts agents", () => {
    expect(names(scope(def(['Bash'])))).toEqual(expect.arrayContaining(['bash', 'run_tests']));
    expect(names(scope(def(['Edit'])))).toEqual(expect.arrayContaining(['code_modify', 'code_rollback', 'edit_file', 'write_file']));
    expect(names(scope(def(['Task'])))).toEqual(expect.arrayContaining(['agent', 'agent_stop', 'agent_wait']));
    expect(names(scope(def(['Task']), { canDelegate: false }))).not.toContain('agent');
    expect(scope(def(['Agent(explore, reviewer)'])).agentTypes).toEqual(['explore', 'reviewer']);
  });

  it("Copilot's sets, OpenCode's switches and denied permissions", () => {
    expect(names(scope(def(['read', 'edit/editFiles'], {}, 'github')))).toEqual(expect.arrayContaining(['edit_file', 'read_file']));
    expect(names(scope(def(['read', 'edit/editFiles'], {}, 'github')))).not.toContain('bash');
    const open = scope(def(null, { disallowedTools: ['write', 'edit', 'bash'] }, 'opencode'));
    expect(names(open)).not.toEqual(expect.arrayContaining(['edit_file']));
    expect(names(open).filter((t) => ['bash', 'run_tests', 'edit_file', 'write_file', 'code_modify'].includes(t))).toEqual([]);
    expect(names(scope(def(null, { deniedKinds: ['edit'] }, 'opencode'))).filter((t) => ['edit_file', 'write_file', 'code_modify', 'code_rollback'].includes(t))).toEqual([]);
  });

  it('MCP tools by name, by server, by wildcard; names that match nothing grant nothing and are said', () => {
    expect(names(scope(def(['mcp__db__query'])))).toEqual(['mcp__db__query', 'modification_log', 'process_kill', 'process_list', 'process_output', 'process_wait', 'skill']);
    expect(names(scope(def(['mcp__db']))).filter((t) => t.startsWith('mcp__'))).toEqual(['mcp__db__drop', 'mcp__db__query']);
    expect(names(scope(def(['db/*'], {}, 'github'))).filter((t) => t.startsWith('mcp__'))).toEqual(['mcp__db__drop', 'mcp__db__query']);
    const s = scope(def(['Frobnicate', 'NotebookEdit']));
    expect(s.unknown).toEqual(['Frobnicate']);
    expect(scope(def([])).tools.size).toBe(0);
  });

  it('read-only leaves what plan mode would not refuse before it runs: reads, and commands it then judges', () => {
    const s = scope(def(null), { readOnly: true });
    expect(s.readOnly).toBe(true);
    expect(names(s)).toEqual(expect.arrayContaining(['bash', 'grep', 'read_file', 'agent', 'mcp__db__query']));
    expect(names(s).filter((t) => ['edit_file', 'write_file', 'code_modify', 'code_rollback', 'process_kill', 'mcp__db__drop', 'mcp__deploy__run'].includes(t))).toEqual([]);
    expect(scope(def(null, { readOnly: true })).readOnly).toBe(true);
  });

  it('never more than the parent: its tools, its kinds', () => {
    const s = childScope({ definition: def(null), parent: PARENT, parentAllowed: new Set(['read_file', 'bash']), parentKinds: new Set(['read']), parentReadOnly: false, canDelegate: true });
    expect(names(s)).toEqual(['read_file']);
  });
});

describe('the agent types', () => {
  it('a file may reword explore but never make it write; Claude Code’s general-purpose is general', async () => {
    const { catalogOf } = await import('./catalog');
    const files = { definitions: [{ ...def(['Edit', 'Bash']), name: 'Explore', description: 'Our explorer.' }], problems: [] };
    const c = catalogOf(files);
    expect(c.definitions.map((d) => d.name)).toEqual(['explore', 'general']);
    expect(c.find('explore')).toMatchObject({ description: 'Our explorer.', readOnly: true });
    expect(c.find('general-purpose')?.name).toBe('general');
    expect(c.find(undefined)?.name).toBe('general');
    expect(c.find('nope')).toBeUndefined();
  });
});
