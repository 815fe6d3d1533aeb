import { z } from 'zod';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { describe, expect, it } from 'vitest';
import { testServices } from '../../../../test/support/services';
import { recordLogger, type LogRecord } from '../../services/log/logger';
import { createToolContext } from './context';
import { ToolRegistry, createToolRegistry, envelope, failure } from './registry';
import { defineTool, type ToolResult } from './types';

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

  it('checks every result against the outputSchema it publishes: one that breaks it is logged and answered without its data', async () => {
    const logged: LogRecord[] = [];
    const answers: ToolResult[] = [
      { ok: true, output: 'fine', data: { count: 2 } },
      { ok: true, output: 'drifted', data: { count: 'two' } },
      { ok: false, output: 'failed and drifted', data: {}, error: { code: 'TIMEOUT', message: 'late' } },
      { ok: true, output: 'with images', data: { count: 1 }, images: [{ mime_type: 'image/png', data: 'AAAA' }] },
    ];
    let next = 0;
    const tool = defineTool({
      name: 'counts',
      title: 'Counts',
      description: 'x',
      effect: 'read',
      permission: null,
      correlated: false,
      idempotent: true,
      openWorld: false,
      schema: z.object({}),
      outputSchema: z.looseObject({ count: z.number().int() }),
      summary: () => 'count',
      run: async () => answers[next++]!,
    });
    const registry = new ToolRegistry().register(tool);
    const ctx = { ...createToolContext(testServices('/nonexistent'), { corrector: null }), logger: recordLogger((r) => logged.push(r)) };
    const valid = new AjvJsonSchemaValidator().getValidator(registry.outputSchema(tool) as never);
    const results = [];
    for (let i = 0; i < answers.length; i++) results.push(await registry.call('counts', {}, ctx));
    expect(results[0]).toEqual(answers[0]);
    expect(results[1]).toEqual({ ok: true, output: 'drifted' });
    expect(results[2]).toEqual({ ok: false, output: 'failed and drifted', error: { code: 'TIMEOUT', message: 'late' } });
    // Images stay for the loop; they never ride in the envelope a client validates.
    expect(results[3]).toEqual(answers[3]);
    for (const r of results) expect(valid(envelope(r)).valid).toBe(true);
    expect(logged.filter((l) => l.event === 'tool.result_invalid').map((l) => [l.tool, l.ok])).toEqual([
      ['counts', true],
      ['counts', false],
    ]);
    expect(String(logged[0]!.problems)).toContain('count');
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
