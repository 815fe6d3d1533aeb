// User-level settings (`<config dir>/settings.json`): today the permission rules that apply to
// every workspace, below the project's own. Read on demand with an mtime check, so an edit in
// an editor takes effect on the next decision; a malformed file is ignored, never fatal.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { PERMISSION_ACTIONS, PERMISSION_KINDS, type PermissionRule } from '../permissions/types';

const SettingsSchema = z.object({
  permissions: z.array(z.object({ kind: z.enum(PERMISSION_KINDS), pattern: z.string().min(1), action: z.enum(PERMISSION_ACTIONS) })).optional(),
});

export class UserSettings {
  readonly file: string;
  private cache: { mtimeMs: number; rules: PermissionRule[]; problem: string | null } | null = null;

  constructor(configDir: string) {
    this.file = path.join(configDir, 'settings.json');
  }

  /** The user's permission rules; [] when the file is missing or malformed (see `problem`). */
  permissions = (): PermissionRule[] => this.load().rules;

  get problem(): string | null {
    return this.load().problem;
  }

  private load(): { rules: PermissionRule[]; problem: string | null } {
    let mtimeMs: number;
    try {
      mtimeMs = statSync(this.file).mtimeMs;
    } catch {
      return { rules: [], problem: null };
    }
    if (this.cache?.mtimeMs === mtimeMs) return this.cache;
    let rules: PermissionRule[] = [];
    let problem: string | null = null;
    try {
      const parsed = SettingsSchema.safeParse(JSON.parse(readFileSync(this.file, 'utf8')));
      if (parsed.success) rules = parsed.data.permissions ?? [];
      else problem = `${this.file}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`;
    } catch (err) {
      problem = `${this.file}: ${(err as Error).message}`;
    }
    this.cache = { mtimeMs, rules, problem };
    return this.cache;
  }
}
