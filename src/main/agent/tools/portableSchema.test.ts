// The portable form of a tool schema: generated schemas of every construct MCP servers and zod
// emit (booleans, bare {}, type lists, tuples in both drafts, local, recursive and remote $refs,
// free-form objects, unions) come out with nothing a strict client lints (the MCP Inspector's
// rules, mirrored below; the Inspector itself runs in test/mcpInspector.e2e.test.ts), and admit
// every value the original admits.
import Ajv2020 from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { portableSchema } from './portableSchema';

type Json = Record<string, unknown>;

// ---- the Inspector's four rules (its core/json/schemaLint), as a reader of its report sees them ----
const BOOLEAN_VALUED = new Set(['additionalProperties', 'unevaluatedProperties', 'additionalItems', 'unevaluatedItems']);
const SUB = ['items', 'contains', 'not', 'propertyNames', 'if', 'then', 'else', 'additionalProperties', 'unevaluatedProperties', 'additionalItems', 'unevaluatedItems', 'contentSchema'];
const SUB_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SUB_MAPS = ['properties', 'patternProperties', 'dependentSchemas', 'dependencies', '$defs', 'definitions'];
const CONSTRAINING = new Set(['type', 'enum', 'const', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength', 'minLength', 'pattern', 'format', 'contentMediaType', 'contentEncoding', 'contentSchema', 'maxItems', 'minItems', 'uniqueItems', 'maxContains', 'minContains', 'maxProperties', 'minProperties', 'required', 'dependentRequired', 'allOf', 'anyOf', 'oneOf', 'not', 'items', 'prefixItems', 'contains', 'additionalItems', 'unevaluatedItems', 'properties', 'patternProperties', 'additionalProperties', 'unevaluatedProperties', 'propertyNames', 'dependentSchemas', 'dependencies', '$ref', '$dynamicRef', '$recursiveRef']);
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export function lint(schema: unknown): string[] {
  const out: string[] = [];
  const walk = (node: unknown, at: string, keyword: string | undefined, depth: number) => {
    if (depth > 64) return;
    if (typeof node === 'boolean') {
      if (!(keyword && BOOLEAN_VALUED.has(keyword))) out.push(`${at}: boolean schema`);
      return;
    }
    if (!isRecord(node)) return;
    if (Array.isArray(node.type)) out.push(`${at}: type list`);
    if (typeof node.$ref === 'string' && node.$ref && !node.$ref.startsWith('#')) out.push(`${at}: remote $ref`);
    const constrains = Object.keys(node).some((k) => CONSTRAINING.has(k)) || ('if' in node && ('then' in node || 'else' in node));
    if (!constrains && keyword !== 'not') out.push(`${at}: untyped`);
    for (const k of SUB_MAPS) if (isRecord(node[k])) for (const [n, s] of Object.entries(node[k] as Json)) walk(s, `${at}.${k}.${n}`, k, depth + 1);
    for (const k of SUB_LISTS) if (Array.isArray(node[k])) (node[k] as unknown[]).forEach((s, i) => walk(s, `${at}.${k}[${i}]`, k, depth + 1));
    for (const k of SUB) {
      if (!(k in node)) continue;
      if (k === 'items' && Array.isArray(node.items)) (node.items as unknown[]).forEach((s, i) => walk(s, `${at}.items[${i}]`, k, depth + 1));
      else walk(node[k], `${at}.${k}`, k, depth + 1);
    }
  };
  walk(schema, '$', undefined, 0);
  return out;
}

// ---- generated schemas: the constructs real servers and zod put in tool schemas ----
const TYPES = ['string', 'number', 'integer', 'boolean', 'null', 'object', 'array'] as const;
const word = fc.constantFrom('a', 'b', 'name', 'path', 'x-y', 'count');

const schemaArb = fc.letrec<{ schema: unknown }>((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant({}),
    fc.boolean(),
    fc.constantFrom(...TYPES).map((type) => ({ type })),
    fc.subarray([...TYPES], { minLength: 2, maxLength: 3 }).map((type) => ({ type, description: 'a list of types' })),
    fc.record({ type: fc.constant('string'), enum: fc.uniqueArray(word, { minLength: 1, maxLength: 3 }) }),
    fc.record({ const: fc.oneof(word, fc.integer()) }),
    fc.record({ type: fc.constant('array'), items: tie('schema') }, { requiredKeys: ['type'] }),
    fc.record({ type: fc.constant('array'), prefixItems: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }), items: fc.constant(false) }),
    fc.record({ type: fc.constant('array'), items: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }), additionalItems: fc.boolean() }),
    fc.record({
      type: fc.constant('object'),
      properties: fc.dictionary(word, tie('schema'), { maxKeys: 3 }),
      additionalProperties: fc.oneof(fc.boolean(), fc.constant({}), tie('schema')),
    }, { requiredKeys: ['type'] }),
    fc.array(tie('schema'), { minLength: 1, maxLength: 3 }).map((anyOf) => ({ anyOf })),
    fc.array(tie('schema'), { minLength: 1, maxLength: 2 }).map((oneOf) => ({ oneOf, description: 'one of' })),
    tie('schema').map((not) => ({ not })),
    fc.constant({ $ref: '#/$defs/node' }),
    fc.constant({ $ref: 'https://example.com/schemas/thing.json' }),
    fc.constant({ description: 'only words' }),
  ),
}));

/** A root with `$defs.node`: a recursive tree, so local references (and cycles) have somewhere to point. */
const rootArb = fc.record({ props: fc.dictionary(word, schemaArb.schema, { maxKeys: 4 }), form: fc.constantFrom('object', 'bare', 'union') }).map(({ props, form }) => {
  const $defs = { node: { type: 'object', properties: { value: {}, children: { type: 'array', items: { $ref: '#/$defs/node' } } } } };
  if (form === 'bare') return { properties: props, $defs };
  if (form === 'union') return { anyOf: [{ type: 'object', properties: props }, { type: 'object', properties: { other: { type: 'string' } }, required: ['other'] }], $defs };
  return { type: 'object', properties: props, $defs, $schema: 'https://json-schema.org/draft/2020-12/schema' };
});

const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  v: fc.oneof({ depthSize: 'small' }, fc.string({ maxLength: 4 }), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), fc.array(tie('v'), { maxLength: 3 }), fc.dictionary(word, tie('v'), { maxKeys: 3 })),
})).v;

/** Values shaped by a schema (most of them valid under it), so tuples, unions and references are exercised. */
function sample(schema: unknown, root: Json, depth = 0): fc.Arbitrary<unknown> {
  if (depth > 4 || !isRecord(schema)) return value;
  if (typeof schema.$ref === 'string') return schema.$ref === '#/$defs/node' ? sample((root.$defs as Json).node, root, depth + 1) : value;
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  if ('const' in schema) return fc.constant(schema.const);
  const union = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  if (union) return fc.oneof(...union.map((b) => sample(b, root, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'string') return fc.string({ maxLength: 4 });
  if (type === 'integer') return fc.integer();
  if (type === 'number') return fc.double({ noNaN: true, noDefaultInfinity: true });
  if (type === 'boolean') return fc.boolean();
  if (type === 'null') return fc.constant(null);
  const tuple = (schema.prefixItems ?? (Array.isArray(schema.items) ? schema.items : null)) as unknown[] | null;
  if (type === 'array' && tuple) return fc.tuple(...tuple.map((t) => sample(t, root, depth + 1)));
  if (type === 'array') return fc.array(sample(schema.items, root, depth + 1), { maxLength: 3 });
  if (type === 'object' || isRecord(schema.properties)) {
    const props = (schema.properties ?? {}) as Json;
    return fc.record(Object.fromEntries(Object.entries(props).map(([k, p]) => [k, sample(p, root, depth + 1)])), { requiredKeys: [] });
  }
  return value;
}

const ajv = () => new Ajv2020({ strict: false, allErrors: false, validateFormats: false });

/** Arrays nested deeper than "any value" spells out (three levels): those alone may be refused. */
const nesting = (v: unknown): number => (Array.isArray(v) ? 1 + Math.max(0, ...v.map(nesting)) : isRecord(v) ? Math.max(0, ...Object.values(v).map(nesting)) : 0);

describe('portableSchema', () => {
  it('leaves nothing a strict client lints, for 2,000 generated schemas', () => {
    fc.assert(
      fc.property(fc.oneof(rootArb, schemaArb.schema), fc.boolean(), (schema, root) => {
        const out = portableSchema(schema, { root });
        expect(lint(out), JSON.stringify(out)).toEqual([]);
        expect(JSON.stringify(out)).not.toMatch(/"\$ref"|"\$defs"|"prefixItems"|"\$schema"/);
        if (root) expect(out).toMatchObject({ type: 'object', properties: expect.any(Object) });
      }),
      { numRuns: 2000 },
    );
  });

  // Under `not`, loosening a schema narrows the whole: those are left to the lint property above.
  it('admits every value the original admits (outside `not`)', () => {
    const [original, portable] = [ajv(), ajv()];
    fc.assert(
      fc.property(rootArb.filter((s) => !JSON.stringify(s).includes('"not"')).chain((schema) => fc.tuple(fc.constant(schema), fc.array(sample(schema, schema), { minLength: 1, maxLength: 6 }))), ([schema, values]) => {
        let before;
        try {
          before = original.compile(schema);
        } catch {
          return; // drafts mixed in one schema (a draft-7 tuple under 2020-12): no reader agrees on it
        }
        const after = portable.compile(portableSchema(schema));
        for (const doc of values) {
          if (before(doc) && nesting(doc) <= 3) expect(after(doc), `${JSON.stringify(doc)} under ${JSON.stringify(portableSchema(schema))}`).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
  }, 60_000);

  it("turns zod's tuple into items with its length (code_modify's line_range)", () => {
    const schema = z.toJSONSchema(z.object({ line_range: z.tuple([z.number().int(), z.number().int()]).optional() }), { io: 'input' });
    expect(portableSchema(schema, { root: true }).properties).toEqual({ line_range: { type: 'array', items: { type: 'integer', minimum: expect.any(Number), maximum: expect.any(Number) }, minItems: 2, maxItems: 2 } });
  });

  it('spells a free-form object as additionalProperties: true, and an unknown value as one type per branch', () => {
    const schema = z.toJSONSchema(z.object({ details: z.record(z.string(), z.unknown()), extra: z.unknown() }), { io: 'output' });
    const out = portableSchema(schema);
    expect(out.properties).toMatchObject({ details: { type: 'object', additionalProperties: true } });
    const extra = (out.properties as Json).extra as { anyOf: Json[] };
    expect(extra.anyOf.map((b) => b.type)).toEqual(['string', 'number', 'boolean', 'null', 'object', 'array']);
  });

  it('gives the model an object at the top, whatever the server wrote there', () => {
    expect(portableSchema(undefined, { root: true })).toEqual({ type: 'object', properties: {} });
    expect(portableSchema({ type: 'object' }, { root: true })).toEqual({ type: 'object', properties: {} });
    const union = portableSchema({ oneOf: [{ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, { type: 'object', properties: { b: { type: 'number' } }, required: ['b'] }] }, { root: true });
    expect(union).toEqual({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } } });
  });

  it('cuts a recursive reference and says where it pointed', () => {
    const out = portableSchema({ type: 'object', properties: { tree: { $ref: '#/$defs/t' } }, $defs: { t: { type: 'object', properties: { kids: { type: 'array', items: { $ref: '#/$defs/t' } } } } } });
    const text = JSON.stringify(out);
    expect(text).toContain('refers back to #/$defs/t');
    expect(lint(out)).toEqual([]);
  });

  // Found by the property above (seed -1311873709): the cut reference made the second branch
  // admit `children: [false]` too, so "exactly one" refused what the original admitted.
  it('makes a oneOf with loosened branches an anyOf, so a value the original admits stays admitted', () => {
    const schema = { type: 'object', properties: { a: { oneOf: [{}, { $ref: '#/$defs/node' }] } }, $defs: { node: { type: 'object', properties: { value: {}, children: { type: 'array', items: { $ref: '#/$defs/node' } } } } } };
    const doc = { a: { children: [false] } };
    expect(ajv().compile(schema)(doc)).toBe(true);
    const out = portableSchema(schema);
    expect(ajv().compile(out)(doc)).toBe(true);
    expect(JSON.stringify(out)).not.toContain('"oneOf"');
    // Nothing loosened: the choice stays exclusive.
    expect(portableSchema({ oneOf: [{ type: 'string' }, { type: 'number' }] })).toEqual({ oneOf: [{ type: 'string' }, { type: 'number' }] });
  });
});
