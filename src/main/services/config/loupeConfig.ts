// The whole `<workspace>/.loupe/config.json`, validated with zod. A malformed
// file is reported with its line and column and ignored (defaults apply), never a crash.
import path from 'node:path';
import { z } from 'zod';
import { CONFIG_REL, lineColumn, parseJsonWithPosition, type ConfigProblem } from '../permissions/projectConfig';
import { PERMISSION_ACTIONS, PERMISSION_KINDS } from '../permissions/types';
import { offsetOfPath } from './jsonPath';
import { lstatInside, readInside } from '../files/safeOpen';

export const DEFAULT_TEST_TIMEOUT_MS = 30_000;

export const LoupeConfigSchema = z
  .object({
    permissions: z.array(z.object({ kind: z.enum(PERMISSION_KINDS), pattern: z.string().min(1), action: z.enum(PERMISSION_ACTIONS) }).strict()).optional(),
    edits: z.object({ mode: z.enum(['review', 'ask']) }).partial().strict().optional(),
    /** Test command per language, e.g. {"typescript": "npx vitest run"}. */
    tests: z.record(z.string(), z.string().min(1)).optional(),
    languages: z.array(z.string().min(1)).optional(),
    search: z.object({ exclude: z.array(z.string()) }).partial().strict().optional(),
    limits: z
      .object({ max_file_bytes: z.number().int().positive(), test_timeout_ms: z.number().int().positive().max(600_000) })
      .partial()
      .strict()
      .optional(),
  })
  .strict();

export type LoupeConfig = z.infer<typeof LoupeConfigSchema>;

export interface LoadedConfig {
  config: LoupeConfig;
  problems: ConfigProblem[];
}

/** Validates a config text; on any problem the config is empty (every key at its default). */
export function parseLoupeConfig(text: string): LoadedConfig {
  const parsed = parseJsonWithPosition(text, CONFIG_REL);
  if ('problem' in parsed) return { config: {}, problems: [parsed.problem] };
  const result = LoupeConfigSchema.safeParse(parsed.value);
  if (result.success) return { config: result.data, problems: [] };
  const problems = result.error.issues.map((issue) => {
    const keys = issue.path.map((k) => (typeof k === 'symbol' ? String(k) : k));
    // An unknown key is reported where that key is written, not at its parent object.
    const where = issue.code === 'unrecognized_keys' ? [...keys, issue.keys[0]] : keys;
    const offset = offsetOfPath(text, where);
    const pos = offset === null ? { line: null, column: null } : lineColumn(text, offset);
    return { file: CONFIG_REL, ...pos, message: `${keys.length ? keys.join('.') : 'config'}: ${issue.message}` };
  });
  return { config: {}, problems };
}

/** `search.exclude`: globs every search tool skips. */
export async function configuredExcludes(file: LoupeConfigFile): Promise<string[]> {
  return (await file.load()).config.search?.exclude ?? [];
}

/** Re-reads the file only when it changed. One per workspace, built by the composition root. */
export class LoupeConfigFile {
  private cached: { key: string; value: LoadedConfig } | null = null;

  constructor(readonly root: string) {}

  get file(): string {
    return path.join(this.root, CONFIG_REL);
  }

  async load(): Promise<LoadedConfig> {
    // Through real folders only, and never blocking on a FIFO: .loupe/ may have come with a clone.
    const st = await Promise.resolve()
      .then(() => lstatInside(this.root, this.file))
      .catch((err: Error) => err);
    if (!st) return { config: {}, problems: [] };
    const key = st instanceof Error ? null : `${st.mtimeMs}:${st.size}:${st.ino}`;
    if (key && this.cached?.key === key) return this.cached.value;
    const text = st instanceof Error ? st : await readInside(this.root, this.file).then((r) => r?.buf.toString('utf8') ?? '', (err: Error) => err);
    const value: LoadedConfig =
      typeof text === 'string' ? parseLoupeConfig(text) : { config: {}, problems: [{ file: CONFIG_REL, line: null, column: null, message: `cannot be read: ${text.message}` }] };
    if (key) this.cached = { key, value };
    return value;
  }
}
