// User-level settings (`<config dir>/settings.json`), the one reader and writer of that file:
// the permission rules that apply to every workspace (below the project's own), the folders
// the person trusted with their project config, and the model settings ("llm", owned by the
// host's LlmSettingsFile through `document`/`update`). Read on demand with a change check, so an
// edit in an editor takes effect on the next decision; a malformed file is ignored, never fatal.
import { readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { InvalidArgumentError } from '../../errors';
import { PERMISSION_ACTIONS, PERMISSION_KINDS, type PermissionRule } from '../permissions/types';
import { writeJsonAtomic } from './atomicJson';

const TrustSchema = z.object({ config_sha256: z.string().regex(/^[0-9a-f]{64}$/), trusted_at: z.string().optional() });

/** The whole file; each key is checked on its own so one bad key does not void the others. */
export const SettingsSchema = z.object({
  permissions: z.array(z.object({ kind: z.enum(PERMISSION_KINDS), pattern: z.string().min(1), action: z.enum(PERMISSION_ACTIONS) })).optional(),
  /** Realpath of a workspace → the sha256 of the `.loupe/config.json` bytes the person trusted. */
  trusted_folders: z.record(z.string(), TrustSchema).optional(),
  llm: z.record(z.string(), z.unknown()).optional(),
});

type Settings = z.infer<typeof SettingsSchema>;
type Loaded = { key: string; rules: PermissionRule[]; trusted: Record<string, string>; problem: string | null };

/** One per config dir per process, held by whoever composes the workspace (see workspace/compose). */
export class UserSettings {
  readonly file: string;
  private cache: Loaded | null = null;
  /** Writes from this instance, one after another, so no update is lost. */
  private writeChain: Promise<unknown> = Promise.resolve();

  constructor(configDir: string) {
    this.file = path.join(configDir, 'settings.json');
  }

  /** The user's permission rules; [] when the file is missing or malformed (see `problem`). */
  permissions = (): PermissionRule[] => this.load().rules;

  get problem(): string | null {
    return this.load().problem;
  }

  /** The config digest this folder (a realpath) was trusted with, or null. */
  trustedDigest(root: string): string | null {
    return this.load().trusted[root] ?? null;
  }

  /** Remembers that the person trusts `root` with the config whose bytes hash to `digest`. */
  trust(root: string, digest: string): Promise<void> {
    return this.update((doc) => {
      const folders = doc.trusted_folders && typeof doc.trusted_folders === 'object' && !Array.isArray(doc.trusted_folders) ? (doc.trusted_folders as Record<string, unknown>) : {};
      return { ...doc, trusted_folders: { ...folders, [root]: { config_sha256: digest, trusted_at: new Date().toISOString() } } };
    });
  }

  /** The file as an object ({} when missing), or null when it is not a JSON object. */
  async document(): Promise<Record<string, unknown> | null> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch {
      return {};
    }
    try {
      const v = JSON.parse(text) as unknown;
      return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
    } catch {
      return null;
    }
  }

  /** Read, change, write atomically (owner-only), keeping every key the change does not touch. */
  update(change: (doc: Record<string, unknown>) => Record<string, unknown> | Promise<Record<string, unknown>>): Promise<void> {
    const job = this.writeChain.catch(() => undefined).then(async () => {
      const doc = await this.document();
      if (doc === null) throw new InvalidArgumentError(`${this.file} is not a JSON object; fix or remove it, then try again.`);
      await writeJsonAtomic(this.file, await change(doc), 0o600);
      this.cache = null;
    });
    this.writeChain = job;
    return job;
  }

  private load(): Loaded {
    let key: string;
    try {
      const s = statSync(this.file);
      key = `${s.mtimeMs}:${s.size}:${s.ino}`;
    } catch {
      return { key: '', rules: [], trusted: {}, problem: null };
    }
    if (this.cache?.key === key) return this.cache;
    const problems: string[] = [];
    let doc: Record<string, unknown> = {};
    try {
      const v = JSON.parse(readFileSync(this.file, 'utf8')) as unknown;
      if (v && typeof v === 'object' && !Array.isArray(v)) doc = v as Record<string, unknown>;
      else problems.push('the file must hold a JSON object');
    } catch (err) {
      problems.push((err as Error).message);
    }
    const pick = <K extends keyof Settings>(k: K): Settings[K] | undefined => {
      const r = SettingsSchema.shape[k].safeParse(doc[k]);
      if (r.success) return r.data as Settings[K];
      problems.push(r.error.issues.map((i) => `${[k, ...i.path].join('.')}: ${i.message}`).join('; '));
      return undefined;
    };
    const trusted = Object.fromEntries(Object.entries(pick('trusted_folders') ?? {}).map(([root, t]) => [root, t.config_sha256]));
    this.cache = { key, rules: pick('permissions') ?? [], trusted, problem: problems.length ? `${this.file}: ${problems.join('; ')}` : null };
    return this.cache;
  }
}
