// A tool's declared permission kind is the one it really asks for: every tool runs once in a
// real workspace with a gate that allows everything and writes down what it was asked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolRegistry } from '../../src/main/agent/tools/registry';
import type { PermissionGate } from '../../src/main/services/permissions/permissionGate';
import { harness, type Harness } from '../support/toolHarness';

const registry = createToolRegistry();
let h: Harness;

function recordingGate(asked: string[]): PermissionGate {
  const gate = {
    authorize: async (input: { query: { kind: string } }) => {
      asked.push(input.query.kind);
      return { by: 'rule', decision: { action: 'allow', kind: input.query.kind, subject: '', rule: null, reason: 'test', always: [] } };
    },
    readRules: async () => ({ actionFor: () => 'allow', limited: false }),
    project: async () => ({ tests: {} }),
  };
  return gate as unknown as PermissionGate;
}

beforeAll(async () => {
  h = await harness({ git: true });
  await h.write('src/a.ts', 'export const a = 1;\nexport const b = 2;\n');
});
afterAll(() => h.cleanup());

describe('declared permission = asked permission', () => {
  it('holds for every tool', async () => {
    const asks = new Map<string, string[]>();
    const run = async (tool: string, args: Record<string, unknown>) => {
      const asked = asks.get(tool) ?? [];
      asks.set(tool, asked);
      return registry.call(tool, args, { ...h.ctx, permissions: recordingGate(asked) });
    };
    await run('read_file', { path: 'src/a.ts' });
    await run('grep', { pattern: 'export' });
    await run('code_search', { pattern: 'export' });
    await run('list_files', {});
    await run('edit_file', { path: 'src/a.ts', old_str: 'a = 1', new_str: 'a = 10' });
    const written = await run('write_file', { path: 'src/b.ts', content: 'x\n' });
    await run('code_modify', { file_path: 'src/a.ts', operation: 'delete', line_range: [2, 2] });
    await run('code_rollback', { modification_id: written.data?.modification_id });
    await run('modification_log', {});
    await run('bash', { command: 'true', description: 'nothing' });
    await run('run_tests', { test_command: 'true' });
    await run('webfetch', { url: 'http://127.0.0.1:9/', timeout: 2 });
    await run('diagnostics', { path: 'src/a.ts' });
    for (const tool of registry.list()) {
      const asked = [...new Set(asks.get(tool.name))];
      expect(asked, `${tool.name} asked`).toEqual(tool.permission ? [tool.permission] : []);
    }
  });
});
