// The permission rules of `<workspace>/.loupe/config.json`. A malformed file is reported with
// its line and column and ignored, never a crash; an "allow always" answer is appended to it
// atomically, every other key kept as the user wrote it. What the file grants (allow rules,
// test commands) applies only while the folder is trusted with these exact bytes (trust.ts).
// It is read and written only through real folders (a clone may ship .loupe/ as a link).
import path from 'node:path';
import { z } from 'zod';
import { lstatInside, readInside } from '../files/safeOpen';
import { writeAtomicInside } from '../files/safeWrite';
import { ConfigMalformedError } from './errors';
import { findJsonError } from './jsonError';
import { configDigest, grantsOf, type TrustStore } from './trust';
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
  /** `edits.mode`: `ask` turns every edit into an approval card; absent means review. */
  editsMode?: EditsMode;
  /** The configured test command per language; absent while the folder is untrusted. */
  tests?: Record<string, string>;
  /** False while the file's grants are ignored for want of trust (absent: true). */
  trusted?: boolean;
  /** What an untrusted file would have granted: its allow rules and test commands. */
  ignored?: { rules: SourcedRule[]; tests: Record<string, string> };
}

const NO_CONFIG: ProjectRules = { rules: [], problems: [] };

export class ProjectConfig {
  private cached: { key: string; digest: string; value: ProjectRules } | null = null;
  private writing: Promise<void> = Promise.resolve();

  /** `root` is a realpath; `trust` says which config bytes the person trusted for it. */
  constructor(
    private readonly root: string,
    private readonly trust: TrustStore,
  ) {}

  get file(): string {
    return path.join(this.root, CONFIG_REL);
  }

  /** Re-read when the file changed, so a rule the user just edited applies at once. */
  async load(): Promise<ProjectRules> {
    const parsed = await this.parsed();
    if (!parsed) return NO_CONFIG;
    return this.trust.trustedDigest(this.root) === parsed.digest ? parsed.value : withoutGrants(parsed.value);
  }

  private async parsed(): Promise<{ digest: string; value: ProjectRules } | null> {
    let key: string;
    try {
      // Through real folders only, and never blocking on a FIFO: .loupe/ may have come with a clone.
      const s = lstatInside(this.root, this.file);
      if (!s) return null;
      key = `${s.mtimeMs}:${s.size}:${s.ino}`;
    } catch {
      return null;
    }
    if (this.cached?.key === key) return this.cached;
    // One read: the bytes hashed for trust are the bytes parsed. Never blocks on a FIFO.
    const bytes = await readInside(this.root, this.file).then((r) => r?.buf ?? Buffer.alloc(0), () => Buffer.alloc(0));
    this.cached = { key, digest: configDigest(bytes), value: this.parse(bytes.toString('utf8')) };
    return this.cached;
  }

  private parse(text: string): ProjectRules {
    const parsed = parseJsonWithPosition(text, CONFIG_REL);
    if ('problem' in parsed) return { rules: [], problems: [parsed.problem] };
    const doc = parsed.value as { permissions?: unknown; edits?: { mode?: unknown } } | null;
    const mode = doc?.edits?.mode;
    // An unreadable mode errs on the careful side: asking before an edit loses nothing.
    const editsMode: EditsMode | undefined = mode === undefined || mode === 'review' ? (mode as EditsMode | undefined) : 'ask';
    const tests = Object.fromEntries(grantsOf(doc).tests.map((t) => [t.language, t.command]));
    const withMode = (r: ProjectRules): ProjectRules => ({ ...r, ...(editsMode ? { editsMode } : {}), ...(Object.keys(tests).length ? { tests } : {}) });
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

  /**
   * Read, change, write atomically, one change at a time; a file that does not parse is left
   * alone. A change Loupe makes for the person (their "allow always", their edits mode) keeps
   * the trust the file had: trusted before, trusted after; untrusted stays untrusted.
   */
  private update(change: (doc: Record<string, unknown>) => Record<string, unknown>): Promise<void> {
    const run = this.writing.then(async () => {
      let doc: Record<string, unknown> = {};
      let mode = 0o644;
      let wasTrusted = true;
      try {
        const read = await readInside(this.root, this.file);
        if (!read) throw Object.assign(new Error('no config yet'), { code: 'ENOENT' });
        const raw = read.buf;
        const text = raw.toString('utf8');
        const grants = grantsOf(safeJson(text));
        // A file that granted nothing held only the person's own choices.
        wasTrusted = this.trust.trustedDigest(this.root) === configDigest(raw) || grants.allow.length + grants.tests.length === 0;
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
      const bytes = Buffer.from(JSON.stringify(change(doc), null, 2) + '\n');
      await writeAtomicInside(this.root, this.file, bytes, { mode, mkdirs: true });
      this.cached = null;
      if (wasTrusted) await this.trust.trust(this.root, configDigest(bytes));
    });
    this.writing = run.catch(() => {});
    return run;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** The config with its grants set aside: deny and ask rules and edits.mode still apply. */
function withoutGrants(value: ProjectRules): ProjectRules {
  const allow = value.rules.filter((r) => r.action === 'allow');
  if (!allow.length && !value.tests) return value;
  const { tests, ...rest } = value;
  return { ...rest, rules: value.rules.filter((r) => r.action !== 'allow'), trusted: false, ignored: { rules: allow, tests: tests ?? {} } };
}
