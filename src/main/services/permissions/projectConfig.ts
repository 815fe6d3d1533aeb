// The permission rules of `<workspace>/.loupe/config.json` (DESIGN §9). A malformed file is
// reported with its line and column and ignored, never a crash; an "allow always" answer is
// appended to it atomically, every other key kept as the user wrote it.
import { lstatInside, readInside } from '../files/safeOpen';
import { writeAtomicInside } from '../files/safeWrite';
import path from 'node:path';
import { z } from 'zod';
import { ConfigMalformedError } from './errors';
import { findJsonError } from './jsonError';
import { PERMISSION_ACTIONS, PERMISSION_KINDS, type PermissionRule, type SourcedRule } from './types';

export const CONFIG_REL = '.loupe/config.json';

export interface ConfigProblem {
  file: string;
  line: number | null;
  column: number | null;
  message: string;
}

const RuleSchema = z.object({ kind: z.enum(PERMISSION_KINDS), pattern: z.string().min(1), action: z.enum(PERMISSION_ACTIONS) });

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

export type EditsMode = 'review' | 'ask';

export interface ProjectRules {
  rules: SourcedRule[];
  problems: ConfigProblem[];
  /** DESIGN §9 `edits.mode`: `ask` turns every edit into an approval card; absent means review. */
  editsMode?: EditsMode;
}

export class ProjectConfig {
  private cached: { key: string; value: ProjectRules } | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly root: string) {}

  get file(): string {
    return path.join(this.root, CONFIG_REL);
  }

  /** Re-read when the file changed, so a rule the user just edited applies at once. */
  async load(): Promise<ProjectRules> {
    let key: string;
    try {
      // Through real folders only, and never blocking on a FIFO: .loupe/ may have come with a clone.
      const s = lstatInside(this.root, this.file);
      if (!s) return { rules: [], problems: [] };
      key = `${s.mtimeMs}:${s.size}:${s.ino}`;
    } catch {
      return { rules: [], problems: [] };
    }
    if (this.cached?.key === key) return this.cached.value;
    const value = this.parse(await readInside(this.root, this.file).then((r) => r?.buf.toString('utf8') ?? '', () => ''));
    this.cached = { key, value };
    return value;
  }

  private parse(text: string): ProjectRules {
    const parsed = parseJsonWithPosition(text, CONFIG_REL);
    if ('problem' in parsed) return { rules: [], problems: [parsed.problem] };
    const doc = parsed.value as { permissions?: unknown; edits?: { mode?: unknown } } | null;
    const mode = doc?.edits?.mode;
    // An unreadable mode errs on the careful side: asking before an edit loses nothing.
    const editsMode: EditsMode | undefined = mode === undefined || mode === 'review' ? (mode as EditsMode | undefined) : 'ask';
    const withMode = (r: ProjectRules): ProjectRules => (editsMode ? { ...r, editsMode } : r);
    const perms = doc?.permissions;
    if (perms === undefined) return withMode({ rules: [], problems: [] });
    if (!Array.isArray(perms)) return withMode({ rules: [], problems: [{ file: CONFIG_REL, line: null, column: null, message: '"permissions" must be a list of {kind, pattern, action}' }] });
    const rules: SourcedRule[] = [];
    const problems: ConfigProblem[] = [];
    perms.forEach((raw, i) => {
      const r = RuleSchema.safeParse(raw);
      if (r.success) rules.push({ ...r.data, source: 'project', origin: `${CONFIG_REL} permissions[${i}]` });
      else problems.push({ file: CONFIG_REL, line: null, column: null, message: `permissions[${i}] ignored: ${r.error.issues.map((x) => `${x.path.join('.') || 'rule'} ${x.message}`).join('; ')}` });
    });
    return withMode({ rules, problems });
  }

  /** Appends rules (skipping ones already there); refuses to touch a file it cannot parse. */
  addRules(add: PermissionRule[]): Promise<void> {
    return this.update((doc) => {
      const list = Array.isArray(doc.permissions) ? [...(doc.permissions as unknown[])] : [];
      const has = (r: PermissionRule) =>
        list.some((x) => {
          const p = RuleSchema.safeParse(x);
          return p.success && p.data.kind === r.kind && p.data.pattern === r.pattern && p.data.action === r.action;
        });
      for (const r of add) if (!has(r)) list.push({ kind: r.kind, pattern: r.pattern, action: r.action });
      return { ...doc, permissions: list };
    });
  }

  /** Sets `edits.mode`, keeping every other key as the user wrote it. */
  setEditsMode(mode: EditsMode): Promise<void> {
    return this.update((doc) => {
      const edits = doc.edits && typeof doc.edits === 'object' && !Array.isArray(doc.edits) ? doc.edits : {};
      return { ...doc, edits: { ...edits, mode } };
    });
  }

  /** Read, change, write atomically, one change at a time; a file that does not parse is left alone. */
  private update(change: (doc: Record<string, unknown>) => Record<string, unknown>): Promise<void> {
    const run = this.writing.then(async () => {
      let doc: Record<string, unknown> = {};
      let mode = 0o644;
      try {
        const read = await readInside(this.root, this.file);
        if (!read) throw Object.assign(new Error('no config yet'), { code: 'ENOENT' });
        const text = read.buf.toString('utf8');
        mode = read.st.mode & 0o777;
        const parsed = parseJsonWithPosition(text, CONFIG_REL);
        if ('problem' in parsed) throw new ConfigMalformedError(parsed.problem);
        if (!parsed.value || typeof parsed.value !== 'object' || Array.isArray(parsed.value)) {
          throw new ConfigMalformedError({ file: CONFIG_REL, line: 1, column: 1, message: 'the file must hold a JSON object' });
        }
        doc = parsed.value as Record<string, unknown>;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
      await writeAtomicInside(this.root, this.file, JSON.stringify(change(doc), null, 2) + '\n', { mode, mkdirs: true });
      this.cached = null;
    });
    this.writing = run.catch(() => {});
    return run;
  }
}
