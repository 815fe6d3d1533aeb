import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ToolCallAssembler, type ToolCallDelta } from './assembler';

type Style = 'openai' | 'no-index-whole' | 'no-index-split' | 'index0-whole' | 'object-args' | 'name-every-delta';
interface Spec {
  name: string;
  args: Record<string, unknown>;
}

/** Splits text at the given cut points (fractions), as a stream would. */
function split(text: string, cuts: number[]): string[] {
  const at = [...new Set(cuts.map((c) => Math.floor(c * text.length)))].filter((i) => i > 0 && i < text.length).sort((a, b) => a - b);
  const out: string[] = [];
  let prev = 0;
  for (const i of at) {
    out.push(text.slice(prev, i));
    prev = i;
  }
  out.push(text.slice(prev));
  return out;
}

type Ids = 'unique' | 'empty' | 'none' | 'same';

/** The deltas a server of that style sends for these calls; `same`: every call under one id (DeepSeek, GLM). */
function deltas(style: Style, calls: Spec[], cuts: number[], ids: Ids): ToolCallDelta[] {
  const idOf = (i: number) => (ids === 'unique' ? `id_${i}` : ids === 'same' ? 'call_00_dup' : ids === 'empty' ? '' : undefined);
  const own = (i: number) => (ids === 'same' ? 'call_00_dup' : `id_${i}`);
  return calls.flatMap((c, i): ToolCallDelta[] => {
    const text = JSON.stringify(c.args);
    const parts = split(text, cuts);
    switch (style) {
      case 'openai':
        return [{ index: i, id: idOf(i) ?? `id_${i}`, function: { name: c.name, arguments: '' } }, ...parts.map((p) => ({ index: i, ...(ids === 'same' ? { id: idOf(i) } : {}), function: { arguments: p } }))];
      case 'no-index-whole':
        return [{ id: idOf(i), function: { name: c.name, arguments: text } }];
      case 'no-index-split':
        return [{ id: idOf(i), function: { name: c.name, arguments: parts[0] } }, ...parts.slice(1).map((p) => ({ function: { arguments: p } }))];
      case 'index0-whole':
        return [{ index: 0, id: own(i), function: { name: c.name, arguments: text } }];
      case 'object-args':
        return [{ index: 0, id: own(i), function: { name: c.name, arguments: c.args } }];
      case 'name-every-delta':
        return parts.map((p) => ({ index: i, ...(idOf(i) ? { id: idOf(i) } : {}), function: { name: c.name, arguments: p } }));
    }
  });
}

const spec = fc.record({
  name: fc.constantFrom('read_file', 'grep', 'edit_file', 'bash', 'list_files'),
  args: fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.oneof(fc.string({ maxLength: 30 }), fc.integer(), fc.boolean()), { maxKeys: 4 }),
});

describe('ToolCallAssembler', () => {
  it('puts back every call of every server style, names whole, arguments as JSON (generated)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<Style>('openai', 'no-index-whole', 'no-index-split', 'index0-whole', 'object-args', 'name-every-delta'),
        fc.array(spec, { minLength: 1, maxLength: 4 }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 6 }),
        fc.constantFrom<Ids>('unique', 'empty', 'none', 'same'),
        fc.integer({ min: 1, max: 3 }),
        (style, calls, cuts, ids, batch) => {
          // Under one id, the same call twice is that call said again, not two calls.
          const keyOf = (c: Spec) => JSON.stringify([c.name, c.args]);
          fc.pre(ids !== 'same' || new Set(calls.map(keyOf)).size === calls.length);
          const a = new ToolCallAssembler();
          const ds = deltas(style, calls, cuts, ids);
          // Deltas arrive one or a few per chunk.
          for (let i = 0; i < ds.length; i += batch) a.add(ds.slice(i, i + batch));
          const out = a.result();
          expect(out.map((c) => c.function.name)).toEqual(calls.map((c) => c.name));
          expect(out.map((c) => JSON.parse(c.function.arguments))).toEqual(calls.map((c) => c.args));
          expect(new Set(out.map((c) => c.id)).size).toBe(out.length);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('two calls under one id stay two calls, the second under a distinct id of the same shape', () => {
    const a = new ToolCallAssembler();
    a.add([{ index: 0, id: 'call_00_dS1D', function: { name: 'read_file', arguments: '' } }]);
    a.add([{ index: 0, id: 'call_00_dS1D', function: { arguments: '{"path":"a"}' } }]);
    a.add([{ index: 1, id: 'call_00_dS1D', function: { name: 'read_file', arguments: '' } }]);
    a.add([{ index: 1, id: 'call_00_dS1D', function: { arguments: '{"path":"b"}' } }]);
    expect(a.result().map((c) => [c.id, c.function.arguments])).toEqual([
      ['call_00_dS1D', '{"path":"a"}'],
      ['call_00_dS11', '{"path":"b"}'],
    ]);
  });

  it('keeps Gemini’s thought signature on its call', () => {
    const a = new ToolCallAssembler();
    a.add([{ id: 'x', function: { name: 'read_file', arguments: '{"path":"a"}' }, extra_content: { google: { thought_signature: 'sig' } } }]);
    expect(a.result()[0]).toMatchObject({ id: 'x', extra_content: { google: { thought_signature: 'sig' } } });
  });

  it('reports starts and argument pieces by call', () => {
    const starts: string[] = [];
    const args: string[] = [];
    const a = new ToolCallAssembler({ onToolCallStart: (c) => starts.push(`${c.index}:${c.name}`), onToolCallArgs: (c) => args.push(`${c.index}:${c.delta}`) });
    a.add([{ index: 0, id: 'a', function: { name: 'grep', arguments: '{"pattern":' } }]);
    a.add([{ index: 0, id: 'b', function: { name: 'read_file', arguments: { path: 'x' } } }]);
    a.add([{ index: 0, id: 'a', function: { arguments: '"x"}' } }]);
    expect(starts).toEqual(['0:grep', '1:read_file']);
    expect(args).toEqual(['0:{"pattern":', '1:{"path":"x"}', '0:"x"}']);
  });
});
