// No subagent holds more than its parent, whatever its definition says: over generated
// definitions (in each agent's dialect, with names that match nothing, wildcards, MCP names,
// denied kinds, plan mode), parent tool sets, parent scopes and modes, and calls of every tool
// and every permission kind, the child's offered tools, its gate's verdict before a tool runs
// and its gate's verdict on each question are never wider than its parent's, never outside its
// definition, and never let a read-only child write. Then the same through a real host: a
// generated definition file, a parent in act or plan mode and the child's generated calls —
// no call outside its set succeeds, a read-only child changes nothing, and the cap on children
// at once and the depth hold.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatEvent } from '../../src/shared/contract';
import type { AgentDefinition, DefinitionDialect } from '../../src/main/services/agents/definitions';
import { childScope } from '../../src/main/agent/subagents/scope';
import { createToolRegistry, type ToolRegistry } from '../../src/main/agent/tools/registry';
import { defineTool, type Tool } from '../../src/main/agent/tools/types';
import type { PermissionGate } from '../../src/main/services/permissions/permissionGate';
import type { PermissionQuery } from '../../src/main/services/permissions/ruleEngine';
import { PERMISSION_KINDS, type PermissionKind } from '../../src/main/services/permissions/types';
import type { WorkspaceServices } from '../../src/main/workspace/compose';
import { z } from 'zod';
import { testServices } from '../support/services';
import { tempDir, writeTree } from '../support/tmp';
import { writeUserSettings } from '../support/userSettings';
import { call, subagentWorld, type SubagentWorld } from './harness';

const mcpTool = (name: string, effect: 'read' | 'write'): Tool =>
  defineTool({
    name,
    title: name,
    description: `An MCP tool ${name}.`,
    effect,
    permission: 'mcp',
    correlated: false,
    idempotent: false,
    openWorld: true,
    schema: z.object({}),
    outputSchema: z.object({}),
    summary: () => name,
    run: async () => ({ ok: true, output: '' }),
  }) as unknown as Tool;

const MCP = [mcpTool('mcp__db__query', 'read'), mcpTool('mcp__db__drop', 'write'), mcpTool('mcp__deploy__run', 'write')];
const ALL: ToolRegistry = createToolRegistry().withTools(() => MCP);
const ALL_TOOLS = ALL.list();
const NAMES = ALL_TOOLS.map((t) => t.name);

// Every word the formats use, Loupe's names, MCP forms, wildcards and nonsense.
const WORDS = [
  ...NAMES,
  'Read', 'Write', 'Edit', 'MultiEdit', 'Bash', 'Glob', 'Grep', 'LS', 'WebFetch', 'WebSearch', 'Task', 'Agent', 'Agent(explore)', 'TodoWrite', 'NotebookEdit',
  'read', 'edit', 'search', 'execute', 'shell', 'web', 'agent', 'todo', 'edit/editFiles', 'runCommands', 'codebase', 'fetch', 'db/*', 'db/query',
  'write', 'bash', 'glob', 'list', 'webfetch', 'task', 'patch',
  'mcp__db', 'mcp__db__query', 'mcp__db__*', 'mcp__deploy__run', 'mcp__nope__x', '*', 'read_*', 'frobnicate', 'Delete', '', ' ',
];

const definition: fc.Arbitrary<AgentDefinition> = fc.record({
  name: fc.constantFrom('general', 'explore', 'reviewer', 'fixer'),
  description: fc.constant('generated'),
  tools: fc.option(fc.array(fc.constantFrom(...WORDS), { maxLength: 6 }), { nil: null }),
  disallowedTools: fc.array(fc.constantFrom(...WORDS), { maxLength: 3 }),
  deniedKinds: fc.subarray(['edit', 'bash', 'webfetch', 'read', 'shell']),
  readOnly: fc.boolean(),
  instructions: fc.constant(''),
  dialect: fc.constantFrom<DefinitionDialect>('loupe', 'claude', 'github', 'opencode'),
  path: fc.constant('generated.md'),
});

const QUERIES: PermissionQuery[] = [
  { kind: 'read', path: 'a.txt' },
  { kind: 'edit', path: 'a.txt' },
  { kind: 'bash', command: 'ls' },
  { kind: 'bash', command: 'rm -f a.txt' },
  { kind: 'test', command: 'ls' },
  { kind: 'webfetch', url: 'https://example.com/' },
  { kind: 'mcp', server: 'db', tool: 'drop', readOnly: false },
];

/** Whether the gate lets the action through before the tool runs. */
const actionPasses = (gate: PermissionGate, t: Tool) => {
  try {
    gate.authorizeAction({ name: t.name, effect: t.effect, asks: t.permission, ...(t.delegates ? { delegates: true } : {}) });
    return true;
  } catch {
    return false;
  }
};
const questionPasses = (gate: PermissionGate, q: PermissionQuery) =>
  gate.authorize({ query: q, tool: 'probe', summary: `probe ${q.kind}` }).then(
    () => true,
    () => false,
  );

describe('a child never holds more than its parent', () => {
  let services: WorkspaceServices;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    const t = await tempDir('loupe-scope-');
    cleanup = t.cleanup;
    const root = path.join(t.dir, 'ws');
    await writeTree(root, { 'a.txt': 'hello\n' });
    const configDir = path.join(t.dir, 'config');
    // Every question allowed by a rule: what is refused below is refused by the mode or the scope.
    writeUserSettings(configDir, {
      sandbox: 'off',
      permissions: (['read', 'edit'] as const).map((kind) => ({ kind, pattern: '**', action: 'allow' })).concat((['bash', 'test', 'webfetch', 'mcp'] as const).map((kind) => ({ kind, pattern: '*', action: 'allow' }) as never)),
    });
    services = testServices(root, { configDir });
  });
  afterAll(async () => {
    await services.dispose();
    await cleanup();
  });

  it('over generated definitions, parent scopes, modes and calls', async () => {
    const parentScope = fc.option(
      fc.record({ tools: fc.subarray(NAMES), kinds: fc.subarray([...PERMISSION_KINDS]), readOnly: fc.boolean() }),
      { nil: null },
    );
    await fc.assert(
      fc.asyncProperty(definition, parentScope, fc.constantFrom<'act' | 'plan'>('act', 'plan'), fc.boolean(), fc.subarray(NAMES), async (def, ps, mode, canDelegate, offeredByParent) => {
        // The parent: its offered tools, and its gate (itself perhaps a child's, narrowed) in its mode.
        const parentGate = (ps ? services.permissions.narrowed({ who: 'the parent', tools: new Set(ps.tools), kinds: new Set(ps.kinds as PermissionKind[]), readOnly: ps.readOnly }) : services.permissions).inMode(mode);
        const parentRegistry = ALL.only((t) => offeredByParent.includes(t.name));
        const scope = childScope({ definition: def, parent: parentRegistry.list(), parentAllowed: parentGate.scope?.tools ?? null, parentKinds: parentGate.scope?.kinds ?? null, parentReadOnly: parentGate.mode === 'plan', canDelegate });
        const gate = parentGate.narrowed({ who: 'the child', tools: scope.tools, kinds: scope.kinds, readOnly: scope.readOnly });
        const offered = new Set(parentRegistry.only((t) => scope.tools.has(t.name)).list().map((t) => t.name));
        for (const t of ALL_TOOLS) {
          const passes = actionPasses(gate, t);
          // Offered exactly when in its set; not offered means refused if called anyway.
          expect(offered.has(t.name)).toBe(scope.tools.has(t.name));
          if (!scope.tools.has(t.name)) expect(passes).toBe(false);
          // Nothing the parent was not offered, or would refuse.
          if (passes || offered.has(t.name)) {
            expect(offeredByParent).toContain(t.name);
            expect(actionPasses(parentGate, t)).toBe(true);
          }
          if (t.delegates && !canDelegate) expect(scope.tools.has(t.name)).toBe(false);
          // A definition's `tools: []` offers nothing.
          if (def.tools && def.tools.length === 0) expect(scope.tools.size).toBe(0);
        }
        // Read-only from any side stays read-only, whatever mode a request of it asks for.
        if (mode === 'plan' || def.readOnly || ps?.readOnly) {
          expect(gate.inMode('act').mode).toBe('plan');
          for (const t of ALL_TOOLS) if (t.effect === 'write' && !t.delegates) expect(actionPasses(gate, t)).toBe(false);
        }
        for (const q of QUERIES) {
          if (!(await questionPasses(gate, q))) continue;
          expect(await questionPasses(parentGate, q)).toBe(true);
          expect(scope.kinds.has(q.kind)).toBe(true);
          if (gate.mode === 'plan') expect(q.kind === 'edit' || (q.kind === 'bash' && q.command.startsWith('rm'))).toBe(false);
        }
      }),
      { numRuns: 400 },
    );
  }, 120_000);
});

describe('through a real host: generated definitions, parent modes and calls', () => {
  let world: SubagentWorld;
  let run = 0;
  /** The calls the current child makes, turn by turn, then its answer. */
  let script: { name: string; args: unknown }[] = [];
  let fanOut = 1;
  beforeAll(async () => {
    world = await subagentWorld(
      [
        {
          when: /^PARENT-\d+/,
          replies: (turn) => (turn === 0 ? { toolCalls: Array.from({ length: fanOut }, (_, i) => call(`a${run}-${i}`, 'agent', { description: `Run ${run} #${i}`, prompt: `CHILD-${run}-${i}: do the calls`, agent_type: `gen-${run}` })) } : { content: 'parent done' }),
        },
        {
          when: /^CHILD-\d+-\d+/,
          replies: (turn) => (turn < script.length ? { toolCalls: [call(`c${run}-${turn}`, script[turn].name, script[turn].args)] } : { content: 'child done' }),
        },
      ],
      {
        files: { 'a.txt': 'hello\n' },
        git: true,
        // Every question a rule allows: what is refused is refused by the scope or the mode.
        settings: { permissions: [{ kind: 'bash', pattern: '*', action: 'allow' }] },
      },
    );
  });
  afterAll(() => world.close());

  const CALLS: { name: string; args: (i: number) => unknown }[] = [
    { name: 'read_file', args: () => ({ path: 'a.txt' }) },
    { name: 'write_file', args: (i) => ({ path: `new-${i}.txt`, content: 'x\n' }) },
    { name: 'edit_file', args: () => ({ path: 'a.txt', old_str: 'hello', new_str: 'bye' }) },
    { name: 'code_modify', args: () => ({ file_path: 'a.txt', operation: 'insert_after', line: 1, new_content: 'z' }) },
    { name: 'bash', args: (i) => ({ command: `touch made-${i}.txt`, description: 'make a file' }) },
    { name: 'bash', args: () => ({ command: 'ls', description: 'list' }) },
    { name: 'list_files', args: () => ({ pattern: '*' }) },
    { name: 'grep', args: () => ({ pattern: 'hello' }) },
    { name: 'agent', args: () => ({ description: 'grandchild', prompt: 'GRANDCHILD: nothing' }) },
    { name: 'frobnicate', args: () => ({}) },
  ];

  const fileText = (d: { tools: string[] | null; disallowed: string[]; readOnly: boolean; dialect: 'claude' | 'loupe' }) =>
    [
      '---',
      `name: gen-${run}`,
      'description: generated',
      ...(d.tools ? [`tools: ${d.tools.join(', ')}`] : []),
      ...(d.disallowed.length ? [`disallowedTools: ${d.disallowed.join(', ')}`] : []),
      ...(d.readOnly ? ['permissionMode: plan'] : []),
      '---',
      'Do what you are told.',
      '',
    ].join('\n');

  const tree = async (root: string): Promise<string[]> => {
    const out: string[] = [];
    for (const e of (await readdir(root, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.isFile()) out.push(`${e.name}:${await readFile(path.join(root, e.name), 'utf8')}`);
    }
    return out;
  };

  it('no call outside the child’s set succeeds, a read-only child changes nothing, the cap and the depth hold', async () => {
    const words = ['Read', 'Write', 'Edit', 'Bash', 'Grep', 'Glob', 'Task', 'read_file', 'edit_file', 'bash', 'frobnicate'];
    await fc.assert(
      fc.asyncProperty(
        fc.option(fc.subarray(words, { minLength: 0 }), { nil: null }),
        fc.subarray(words, { maxLength: 2 }),
        fc.boolean(),
        fc.constantFrom<'act' | 'plan'>('act', 'plan'),
        fc.array(fc.integer({ min: 0, max: CALLS.length - 1 }), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 1, max: 6 }),
        async (tools, disallowed, readOnly, mode, calls, n) => {
          run++;
          fanOut = n;
          script = calls.map((c, i) => ({ name: CALLS[c].name, args: CALLS[c].args(run * 10 + i) }));
          await mkdir(path.join(world.root, '.claude/agents'), { recursive: true });
          await writeFile(path.join(world.root, '.claude/agents', `gen-${run}.md`), fileText({ tools, disallowed, readOnly, dialect: 'claude' }));
          const before = await tree(world.root);
          const modsBefore = (await world.host.handle('modlog.list', {})).modifications.length;
          const { session_id, correlation_id } = await world.host.handle('chat.send', { text: `PARENT-${run}`, mode });
          await world.finished(correlation_id);
          const events = world.chat(session_id);
          const started = events.filter((e): e is Extract<ChatEvent, { type: 'subagent_started' }> => e.type === 'subagent_started');
          // The cap: never more than four at once, and no more started than asked or allowed.
          expect(started.length).toBe(Math.min(n, 4));
          let live = 0;
          for (const e of events) {
            if (e.type === 'subagent_started') live++;
            if (e.type === 'subagent_finished') live--;
            expect(live).toBeLessThanOrEqual(4);
          }
          for (const s of started) {
            // Depth 1: no grandchild ever starts, and none is offered the tool.
            expect(s.tools).not.toContain('agent');
            expect(s.parent_session_id).toBe(session_id);
            const done = events.filter((e): e is Extract<ChatEvent, { type: 'tool_call_finished' }> => e.type === 'tool_call_finished' && e.agent_id === s.agent_id && e.ok);
            for (const d of done) expect(s.tools).toContain(d.tool);
            if (mode === 'plan' || readOnly) expect(s.read_only).toBe(true);
          }
          expect(events.filter((e) => e.type === 'subagent_started' && e.parent_session_id !== session_id)).toEqual([]);
          if (mode === 'plan' || readOnly) {
            expect(await tree(world.root)).toEqual(before);
            expect((await world.host.handle('modlog.list', {})).modifications.length).toBe(modsBefore);
          }
        },
      ),
      { numRuns: 12 },
    );
  }, 600_000);
});
