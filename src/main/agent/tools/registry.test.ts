import { describe, expect, it } from 'vitest';
import { testServices } from '../../../../test/support/services';
import { createToolContext } from './context';
import { createToolRegistry, failure } from './registry';

describe('tool registry', () => {
  const registry = createToolRegistry();

  it('holds read_file, write_file and edit_file, each with an object JSON schema', () => {
    expect(registry.list().map((t) => t.name).slice(0, 3)).toEqual(['read_file', 'write_file', 'edit_file']);
    for (const tool of registry.list().slice(0, 3)) {
      const schema = registry.inputSchema(tool);
      expect(schema).toMatchObject({ type: 'object', required: expect.arrayContaining(['path']) });
      expect(schema).not.toHaveProperty('$schema');
      expect(tool.description.length).toBeGreaterThan(40);
    }
    expect(registry.inputSchema(registry.get('edit_file')!)).toMatchObject({
      required: ['path', 'old_str', 'new_str'],
      properties: { expected_replacements: { type: 'integer', minimum: 1 }, replace_all: { type: 'boolean' } },
    });
  });

  it('answers an unknown tool with INVALID_ARGUMENT, never a throw', async () => {
    const ctx = createToolContext(testServices('/nonexistent'), { corrector: null });
    expect(await registry.call('nope', {}, ctx)).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
  });

  it('turns unexpected errors into coded failures', () => {
    expect(failure(Object.assign(new Error('gone'), { code: 'ENOENT' }))).toMatchObject({ ok: false, error: { code: 'FILE_NOT_FOUND' } });
    expect(failure(new Error('boom')).output).toBe('Error [INTERNAL]: boom');
  });

  it('disables the corrector when no model is configured', () => {
    const prev = process.env.LOUPE_MODEL;
    delete process.env.LOUPE_MODEL;
    try {
      expect(createToolContext(testServices('/x')).corrector).toBeNull();
    } finally {
      if (prev !== undefined) process.env.LOUPE_MODEL = prev;
    }
  });
});
