// Validation of a JSON settings file key by key against its zod schema. A key that is unknown
// or malformed is reported where it is written (line and column) and left out; every other key
// keeps its value. Objects whose keys are all optional are checked member by member, lists and
// records item by item; anything else (a permission rule, an object whose keys are checked
// together, such as an MCP server) is taken whole or not at all, since half a rule could grant
// more than the whole one meant.
import { z } from 'zod';
import { findJsonError } from '../permissions/jsonError';
import { offsetOfPath } from './jsonPath';

export interface ConfigProblem {
  file: string;
  line: number | null;
  column: number | null;
  message: string;
}

export function describeProblem(p: ConfigProblem): string {
  return `${p.file}${p.line !== null ? `:${p.line}:${p.column}` : ''}: ${p.message}`;
}

/** Line and column (1-based) of a character offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const line = before.split('\n').length;
  return { line, column: offset - (before.lastIndexOf('\n') + 1) + 1 };
}

export function parseJsonWithPosition(text: string, file: string): { value: unknown } | { problem: ConfigProblem } {
  try {
    return { value: JSON.parse(text) };
  } catch (err) {
    const found = findJsonError(text) ?? { offset: text.length, message: (err as Error).message };
    return { problem: { file, ...lineColumn(text, found.offset), message: found.message } };
  }
}

export type Path = (string | number)[];

export interface Checked<T> {
  value: Partial<T>;
  problems: ConfigProblem[];
}

const isRecord = (v: unknown): v is Record<string, unknown> => Boolean(v) && typeof v === 'object' && !Array.isArray(v);

const unwrap = (s: z.ZodType): z.ZodType => (s instanceof z.ZodOptional ? unwrap(s.unwrap() as z.ZodType) : s);

/**
 * An object checked member by member: every member optional, so any subset is a valid value, and
 * no check across its keys (a refinement), which a subset could pass without meaning the same.
 */
const isGroup = (s: z.ZodType): s is z.ZodObject => s instanceof z.ZodObject && Object.values(s.shape).every((m) => m instanceof z.ZodOptional) && !s._zod.def.checks?.length;
const label = (p: Path): string => p.reduce<string>((acc, k) => (typeof k === 'number' ? `${acc}[${k}]` : acc ? `${acc}.${k}` : k), '') || 'the file';

/** A problem at `path` of a file, with its line and column when the text is known. */
export function problemAt(file: string, text: string | undefined, path: Path, message: string): ConfigProblem {
  const offset = text === undefined ? null : offsetOfPath(text, path);
  const pos = offset === null ? { line: null, column: null } : lineColumn(text!, offset);
  return { file, ...pos, message: `${label(path)}: ${message}` };
}

/**
 * Checks a parsed document against `schema` (a group: an object of optional keys). `text`, when
 * given, is the file's text, so each problem gets the line and column where it is written.
 */
export function checkDocument<S extends z.ZodObject>(doc: unknown, schema: S, file: string, text?: string): Checked<z.output<S>> {
  const problems: ConfigProblem[] = [];
  const report = (p: Path, message: string) => problems.push(problemAt(file, text, p, message));
  const unknownKeys = (obj: Record<string, unknown>, known: string[], at: Path) => {
    for (const k of Object.keys(obj)) {
      if (!known.includes(k)) report([...at, k], `unknown key "${k}", ignored (known here: ${known.join(', ')})`);
    }
  };
  const check = (s: z.ZodType, v: unknown, at: Path): { ok: true; value: unknown } | { ok: false } => {
    const inner = unwrap(s);
    if (isGroup(inner)) {
      if (!isRecord(v)) return report(at, `must be an object with the keys ${Object.keys(inner.shape).join(', ')}; ignored`), { ok: false };
      unknownKeys(v, Object.keys(inner.shape), at);
      const out: Record<string, unknown> = {};
      for (const [k, member] of Object.entries(inner.shape)) {
        if (v[k] === undefined) continue;
        const r = check(member as z.ZodType, v[k], [...at, k]);
        if (r.ok) out[k] = r.value;
      }
      return { ok: true, value: out };
    }
    if (inner instanceof z.ZodArray) {
      if (!Array.isArray(v)) return report(at, 'must be a list; ignored'), { ok: false };
      const out: unknown[] = [];
      v.forEach((item, i) => {
        const r = check(inner.element as z.ZodType, item, [...at, i]);
        if (r.ok) out.push(r.value);
      });
      return { ok: true, value: out };
    }
    if (inner instanceof z.ZodRecord) {
      if (!isRecord(v)) return report(at, 'must be an object; ignored'), { ok: false };
      const out: Record<string, unknown> = {};
      for (const [k, item] of Object.entries(v)) {
        const r = check(inner.valueType as z.ZodType, item, [...at, k]);
        if (r.ok) out[k] = r.value;
      }
      return { ok: true, value: out };
    }
    if (inner instanceof z.ZodObject && isRecord(v)) unknownKeys(v, Object.keys(inner.shape), at);
    const r = inner.safeParse(v);
    if (r.success) return { ok: true, value: r.data };
    for (const issue of r.error.issues) {
      const sub = issue.path.map((k) => (typeof k === 'symbol' ? String(k) : k));
      report([...at, ...sub], `${issue.message}; ${sub.length ? `the whole ${label(at)}` : 'it'} is ignored`);
    }
    return { ok: false };
  };
  const r = check(schema, doc, []);
  // In the order of the file, as the person reads it.
  problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
  return { value: (r.ok ? r.value : {}) as Partial<z.output<S>>, problems };
}

/** Parses and checks a file's text: a syntax error voids the file, any other problem only its key. */
export function checkText<S extends z.ZodObject>(text: string, schema: S, file: string): Checked<z.output<S>> {
  const parsed = parseJsonWithPosition(text, file);
  if ('problem' in parsed) return { value: {}, problems: [parsed.problem] };
  return checkDocument(parsed.value, schema, file, text);
}

/**
 * Says each problem once: a problem already reported is not said again while the file still has
 * it, even when lines above it moved it; once fixed and made again, it is new.
 */
export class ProblemReporter {
  private said = new Set<string>();

  constructor(private readonly report: (problem: ConfigProblem) => void) {}

  /** Reports what a fresh reading of one file found (all of that file's problems). */
  found(problems: ConfigProblem[]): void {
    const now = new Set<string>();
    for (const p of problems) {
      const key = `${p.file}: ${p.message}`;
      if (now.has(key)) continue;
      now.add(key);
      if (!this.said.has(key)) this.report(p);
    }
    this.said = now;
  }
}
