// Tool schemas in the portable subset of JSON Schema (docs/architecture.md, "Tools from MCP
// servers"): what OpenAI-compatible endpoints accept and what strict MCP clients (the MCP
// Inspector's --strict lint) pass. One function serves Loupe's own tools, toward the model and as
// `loupe mcp` publishes them, and every MCP server's tools before the model sees them. It keeps
// what a schema means wherever the portable subset can say it, and says "any JSON value" in a
// spelling every reader understands where it cannot:
// - a bare `true`/`false` or `{}` where a schema belongs (zod's unknown(), a tuple's `items:
//   false`) becomes a typed schema: `anyOf` of the JSON types, `{"not": {}}`;
// - `additionalProperties: {}` becomes `true` (a free-form object);
// - a `type` list becomes `anyOf` branches with one type each (Gemini's dialect has no lists);
// - a tuple (`prefixItems`, or draft 7's `items: [...]`) becomes `items` that admits each member,
//   its length kept by minItems/maxItems (local servers' grammar builders reject prefixItems);
// - local `$ref`s are inlined (recursion is cut at a depth and said in the description), remote
//   ones become "any value" with the reference in the description, since no client fetches them;
// - a `oneOf` whose branches had to admit more (a cut reference, a tuple) becomes `anyOf`: two
//   loosened branches may both match a value the original took with one;
// - an array gets `items` (OpenAI refuses an array schema without one);
// - the top level is an object with `properties` (the chat API's function parameters).

type Json = Record<string, unknown>;

const META = new Set(['$schema', '$id', '$anchor', '$dynamicAnchor', '$comment', '$vocabulary', '$defs', 'definitions']);
/** Keywords whose boolean value is the ordinary spelling (a closed or open object). */
const BOOLEAN_VALUED = new Set(['additionalProperties', 'unevaluatedProperties', 'additionalItems', 'unevaluatedItems']);
const SUBSCHEMA = ['items', 'contains', 'not', 'propertyNames', 'if', 'then', 'else', 'additionalProperties', 'unevaluatedProperties', 'additionalItems', 'unevaluatedItems', 'contentSchema'];
const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf'];
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', 'dependentSchemas'];
/** Keywords that constrain a value: a schema with none of them accepts anything. */
const CONSTRAINING = new Set([
  'type', 'enum', 'const', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength', 'minLength', 'pattern', 'format',
  'contentMediaType', 'contentEncoding', 'contentSchema', 'maxItems', 'minItems', 'uniqueItems', 'maxContains', 'minContains', 'maxProperties', 'minProperties',
  'required', 'dependentRequired', 'allOf', 'anyOf', 'oneOf', 'not', 'items', 'prefixItems', 'contains', 'additionalItems', 'unevaluatedItems', 'properties',
  'patternProperties', 'additionalProperties', 'unevaluatedProperties', 'propertyNames', 'dependentSchemas', 'dependencies', '$ref',
]);
/** Words about a value, not constraints on it: kept on the outer schema when it is split. */
const ANNOTATIONS = new Set(['title', 'description', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly']);
/** How deep a local `$ref` is followed: recursive schemas (a tree, JSON itself) are cut here. */
const MAX_REF_DEPTH = 6;
const MAX_DEPTH = 64;

const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const SCALARS: Json[] = [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }];
const FREE_OBJECT: Json = { type: 'object', additionalProperties: true };

/** Any JSON value, spelled with a single type per branch; arrays nest two levels deep. */
function anyValue(depth = 2): Json {
  const items = depth > 0 ? anyValue(depth - 1) : { anyOf: [...SCALARS, FREE_OBJECT] };
  return { anyOf: [...SCALARS, FREE_OBJECT, { type: 'array', items }] };
}

const constrains = (node: Json): boolean => Object.keys(node).some((k) => CONSTRAINING.has(k)) || ('if' in node && ('then' in node || 'else' in node));

const note = (node: Json, text: string): Json => ({ ...node, description: typeof node.description === 'string' && node.description ? `${node.description} (${text})` : text });

interface Walk {
  root: Json;
  /** Local references being inlined on the way here (a cycle stops at the second visit). */
  refs: string[];
  /** Counts the places a schema was made to admit more than it said (a cut reference, a tuple). */
  loosened: { n: number };
}

/** The schema `ref` points to inside `root` (`#`, `#/$defs/x`, `#/definitions/x`, any JSON pointer); undefined when absent. */
function resolveLocal(root: Json, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let at: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isRecord(at) && !Array.isArray(at)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

function cleanList(list: unknown[], w: Walk, depth: number): Json[] {
  return list.map((s) => clean(s, undefined, w, depth + 1));
}

/** A tuple's members as one `items` schema: the member itself when all agree, else any of them. */
function tupleItems(members: Json[]): Json {
  const seen = new Map(members.map((m) => [JSON.stringify(m), m]));
  return seen.size === 1 ? members[0] : { anyOf: [...seen.values()] };
}

function clean(input: unknown, keyword: string | undefined, w: Walk, depth: number): Json {
  if (depth > MAX_DEPTH) {
    w.loosened.n++;
    return note(anyValue(), 'nested too deep to describe');
  }
  if (typeof input === 'boolean') return input ? anyValue() : { not: {} };
  if (!isRecord(input)) return anyValue();
  let node: Json = { ...input };

  if (typeof node.$ref === 'string') {
    const ref = node.$ref;
    delete node.$ref;
    const target = ref.startsWith('#') ? resolveLocal(w.root, ref) : undefined;
    if (target === undefined || w.refs.includes(ref) || w.refs.length >= MAX_REF_DEPTH) {
      const why = target === undefined ? `a schema at ${ref}` : `refers back to ${ref}`;
      w.loosened.n++;
      return note({ ...pickAnnotations(node), ...anyValue() }, why);
    }
    const inner = clean(target, keyword, { ...w, refs: [...w.refs, ref] }, depth + 1);
    // Keywords beside a $ref apply too: keep the reference's, the local ones win on a clash.
    node = { ...inner, ...node };
  }
  for (const k of META) delete node[k];

  // A tuple: its members admitted one by one, its length kept.
  const tuple = Array.isArray(node.prefixItems) ? node.prefixItems : Array.isArray(node.items) ? node.items : null;
  if (tuple) {
    w.loosened.n++;
    const members = cleanList(tuple, w, depth);
    // 2020-12 closes a tuple with `items: false`, draft 7 with `additionalItems: false`.
    const rest = Array.isArray(node.prefixItems) ? node.items : node.additionalItems;
    const closed = rest === false;
    if (isRecord(rest)) members.push(clean(rest, 'items', w, depth + 1));
    delete node.prefixItems;
    delete node.additionalItems;
    node.items = members.length ? tupleItems(members) : anyValue();
    if (node.minItems === undefined) node.minItems = 0;
    if (closed && node.maxItems === undefined) node.maxItems = members.length;
    if (!node.type) node.type = 'array';
  } else if (node.items === false) {
    node.items = anyValue();
    node.maxItems = 0;
  }

  for (const k of SUBSCHEMA) {
    if (!(k in node)) continue;
    const v = node[k];
    if (BOOLEAN_VALUED.has(k) && typeof v === 'boolean') continue;
    // A free-form object says so plainly: `additionalProperties: true`, not `{}`.
    if (BOOLEAN_VALUED.has(k) && isRecord(v) && !constrains(v) && Object.keys(v).every((key) => ANNOTATIONS.has(key))) {
      node[k] = true;
      continue;
    }
    node[k] = clean(v, k, w, depth + 1);
  }
  // Object keys are strings anyway; `propertyNames: {type: string}` (zod's records) only adds noise.
  if (isRecord(node.propertyNames) && Object.keys(node.propertyNames).length === 1 && node.propertyNames.type === 'string') delete node.propertyNames;
  for (const k of SUBSCHEMA_LISTS) {
    if (!Array.isArray(node[k])) continue;
    const before = w.loosened.n;
    node[k] = cleanList(node[k] as unknown[], w, depth);
    // "Exactly one" of branches that now admit more can reject a value the original took (two
    // loosened branches both match it): such a choice becomes "any of", which admits a superset.
    if (k === 'oneOf' && w.loosened.n > before) node = looserChoice(node);
  }
  for (const k of SUBSCHEMA_MAPS) {
    if (!isRecord(node[k])) continue;
    node[k] = Object.fromEntries(Object.entries(node[k] as Json).map(([name, s]) => [name, clean(s, k, w, depth + 1)]));
  }
  if (isRecord(node.dependencies)) {
    node.dependencies = Object.fromEntries(Object.entries(node.dependencies).map(([name, d]) => [name, Array.isArray(d) ? d : clean(d, 'dependencies', w, depth + 1)]));
  }

  if (Array.isArray(node.type)) node = splitTypes(node);
  if (node.type === 'array' && node.items === undefined) node.items = anyValue();
  if (!constrains(node) && keyword !== 'not') node = { ...node, ...anyValue() };
  return node;
}

function pickAnnotations(node: Json): Json {
  return Object.fromEntries(Object.entries(node).filter(([k]) => ANNOTATIONS.has(k)));
}

/** `oneOf` as `anyOf` (beside an `anyOf` already there, both must hold: the pair goes under `allOf`). */
function looserChoice(node: Json): Json {
  const { oneOf, ...rest } = node;
  if (rest.anyOf === undefined) return { ...rest, anyOf: oneOf };
  return { ...rest, allOf: [...((rest.allOf as Json[] | undefined) ?? []), { anyOf: oneOf }] };
}

/** `{"type": ["string", "null"], …}` → `{"anyOf": [{"type": "string", …}, {"type": "null"}]}`. */
function splitTypes(node: Json): Json {
  const types = [...new Set((node.type as unknown[]).filter((t): t is string => typeof t === 'string'))];
  const { type: _t, ...rest } = node;
  if (types.length === 0) return { ...rest, ...anyValue() };
  if (types.length === 1) return { ...rest, type: types[0] };
  const outer = pickAnnotations(rest);
  const inner = Object.fromEntries(Object.entries(rest).filter(([k]) => !ANNOTATIONS.has(k)));
  const branches = types.map((t) => (t === 'null' ? { type: 'null' } : { ...inner, type: t, ...(t === 'array' && inner.items === undefined ? { items: anyValue() } : {}) }));
  return { ...outer, anyOf: branches };
}

/**
 * The portable form of a tool's input or output schema. `root`: the schema of a whole argument
 * object, which must be an object with properties (the chat API's function parameters).
 */
export function portableSchema(schema: unknown, opts: { root?: boolean } = {}): Json {
  const given = isRecord(schema) ? schema : {};
  // A bare `{}` or a schema with properties and no type, at the top, is an argument object.
  const plain = given.type === undefined && !given.anyOf && !given.oneOf && !given.allOf && given.$ref === undefined;
  const root = opts.root && plain ? { type: 'object', ...given } : given;
  let out = clean(root, undefined, { root, refs: [], loosened: { n: 0 } }, 0);
  if (opts.root) out = objectRoot(out);
  return out;
}

/** An object at the top: a union of objects is merged (a model cannot be given a choice of shapes there). */
function objectRoot(node: Json): Json {
  if (node.type === 'object' && !node.anyOf && !node.oneOf && !node.allOf) return { ...node, properties: isRecord(node.properties) ? node.properties : {} };
  const branches = [...((node.anyOf as Json[] | undefined) ?? []), ...((node.oneOf as Json[] | undefined) ?? []), ...((node.allOf as Json[] | undefined) ?? [])].filter((b) => b.type === 'object' || isRecord(b.properties));
  const properties: Json = isRecord(node.properties) ? { ...node.properties } : {};
  for (const b of branches) Object.assign(properties, isRecord(b.properties) ? b.properties : {});
  // Only what every branch (and the node) requires stays required.
  const requiredSets = [node, ...branches].filter((b) => Array.isArray(b.required)).map((b) => new Set(b.required as string[]));
  const required = requiredSets.length && branches.length ? [...requiredSets[0]].filter((r) => requiredSets.every((s) => s.has(r))) : Array.isArray(node.required) ? node.required : [];
  const { anyOf: _a, oneOf: _o, allOf: _l, not: _n, ...rest } = node;
  const kept = Object.fromEntries(Object.entries(rest).filter(([k]) => ANNOTATIONS.has(k) || k === 'additionalProperties'));
  return { ...kept, type: 'object', properties, ...(required.length ? { required } : {}) };
}
