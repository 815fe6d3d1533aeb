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

/** The deltas a server of that style sends for these calls. */
function deltas(style: Style, calls: Spec[], cuts: number[], ids: 'unique' | 'empty' | 'none'): ToolCallDelta[] {
  const idOf = (i: number) => (ids === 'unique' ? `id_${i}` : ids === 'empty' ? '' : undefined);
  return calls.flatMap((c, i): ToolCallDelta[] => {
    const text = JSON.stringify(c.args);
    const parts = split(text, cuts);
    switch (style) {
      case 'openai':
        return [{ index: i, id: idOf(i) ?? `id_${i}`, function: { name: c.name, arguments: '' } }, ...parts.map((p) => ({ index: i, function: { arguments: p } }))];
      case 'no-index-whole':
        return [{ id: idOf(i), function: { name: c.name, arguments: text } }];
      case 'no-index-split':
        return [{ id: idOf(i), function: { name: c.name, arguments: parts[0] } }, ...parts.slice(1).map((p) => ({ function: { arguments: p } }))];
      case 'index0-whole':
        return [{ index: 0, id: `id_${i}`, function: { name: c.name, arguments: text } }];
      case 'object-args':
        return [{ index: 0, id: `id_${i}`, function: { name: c.name, arguments: c.args } }];
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
        fc.constantFrom<'unique' | 'empty' | 'none'>('unique', 'empty', 'none'),
        fc.integer({ min: 1, max: 3 }),
        (style, calls, cuts, ids, batch) => {
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
      { numRuns: 600 },
    );
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
