// The permission rules of `<workspace>/.loupe/config.json`. A malformed file is reported with
// its line and column and ignored, never a crash; an "allow always" answer is appended to it
// atomically, every other key kept as the user wrote it. What the file grants (allow rules,
// test commands) applies only while the folder is trusted with these exact bytes (trust.ts).
// It is read and written only through real folders (a clone may ship .loupe/ as a link).
import path from 'node:path';
import { CONFIG_REL, LoupeConfigSchema, type LoupeConfig } from '../config/loupeConfig';
import { ProblemReporter, checkDocument, parseJsonWithPosition, type ConfigProblem } from '../config/validate';
import { lstatInside, readInside } from '../files/safeOpen';
import { writeAtomicInside } from '../files/safeWrite';
import { ConfigMalformedError } from './errors';
import { configDigest, grantsOf, type TrustStore } from './trust';
import { PermissionRuleSchema, type PermissionRule, type SourcedRule } from './types';

export { CONFIG_REL, type ConfigProblem };
export { lineColumn, parseJsonWithPosition } from '../config/validate';

export type EditsMode = 'review' | 'ask';

export interface ProjectRules {
  rules: SourcedRule[];
  problems: ConfigProblem[];
  /** Every valid key of the file as it applies now (no allow rules or tests while untrusted). */
  config: LoupeConfig;
  /** `edits.mode`: `ask` turns every edit into an approval card; absent means review. */
  editsMode?: EditsMode;
  /** The configured test command per language; absent while the folder is untrusted. */
  tests?: Record<string, string>;
  /** False while the file's grants are ignored for want of trust (absent: true). */
  trusted?: boolean;
  /** What an untrusted file would have granted: its allow rules and test commands. */
  ignored?: { rules: SourcedRule[]; tests: Record<string, string>; sandboxOff?: true };
}

const NO_CONFIG: ProjectRules = { rules: [], problems: [], config: {} };

export interface ProjectConfigOptions {
  /** Told each problem of the file once (a bad or unknown key: where, and what is wrong). */
  report?: (problem: ConfigProblem) => void;
}

/**
 * The one reader of `.loupe/config.json` for a workspace. Re-reads when the file's stat
 * changes, so an edit in an editor applies to the next decision, search or test run.
 */
export class ProjectConfig {
  private cached: { key: string; digest: string; value: ProjectRules } | null = null;
  private writing: Promise<void> = Promise.resolve();
  private readonly reporter: ProblemReporter;

  /** `root` is a realpath; `trust` says which config bytes the person trusted for it. */
  constructor(
    private readonly root: string,
    private readonly trust: TrustStore,
    opts: ProjectConfigOptions = {},
  ) {
    this.reporter = new ProblemReporter(opts.report ?? (() => undefined));
  }

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
      if (!s) return this.forget();
      key = `${s.mtimeMs}:${s.size}:${s.ino}`;
    } catch (err) {
      this.reporter.found([{ file: CONFIG_REL, line: null, column: null, message: `cannot be read: ${(err as Error).message}` }]);
      return null;
    }
    if (this.cached?.key === key) return this.cached;
    // One read: the bytes hashed for trust are the bytes parsed. Never blocks on a FIFO.
    const bytes = await readInside(this.root, this.file).then(
      (r) => r?.buf ?? Buffer.alloc(0),
      () => Buffer.alloc(0),
    );
    this.cached = { key, digest: configDigest(bytes), value: parseProjectRules(bytes.toString('utf8')) };
    this.reporter.found(this.cached.value.problems);
    return this.cached;
  }

  private forget(): null {
    this.cached = null;
    this.reporter.found([]);
    return null;
  }

  /** Appends rules (skipping ones already there); refuses to touch a file it cannot parse. */
  addRules(add: PermissionRule[]): Promise<void> {
    return this.update((doc) => {
      const list = Array.isArray(doc.permissions) ? [...(doc.permissions as unknown[])] : [];
      const has = (r: PermissionRule) =>
        list.some((x) => {
          const p = PermissionRuleSchema.safeParse(x);
          const sameHosts = JSON.stringify(p.success ? (p.data.hosts ?? null) : null) === JSON.stringify(r.hosts ?? null);
          return p.success && p.data.kind === r.kind && p.data.pattern === r.pattern && p.data.action === r.action && (p.data.sandbox === false) === (r.sandbox === false) && sameHosts;
        });
      for (const r of add) {
        if (!has(r)) list.push({ kind: r.kind, pattern: r.pattern, action: r.action, ...(r.sandbox === false ? { sandbox: false } : {}), ...(r.hosts ? { hosts: r.hosts } : {}) });
      }
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
  const { tests, ...rest } = value;
  // "sandbox": "off" lifts a protection, so a file nobody trusted cannot turn the sandbox off.
  const { tests: _tests, sandbox, ...config } = value.config;
  const kept = { ...config, ...(sandbox === 'auto' ? { sandbox } : {}), ...(config.permissions ? { permissions: config.permissions.filter((r) => r.action !== 'allow') } : {}) };
  if (!allow.length && !tests && sandbox !== 'off') return { ...rest, config: kept };
  return { ...rest, config: kept, rules: value.rules.filter((r) => r.action !== 'allow'), trusted: false, ignored: { rules: allow, tests: tests ?? {}, ...(sandbox === 'off' ? { sandboxOff: true as const } : {}) } };
}

/** The file's text as rules and settings: every valid key applies, every other one is a problem. */
export function parseProjectRules(text: string): ProjectRules {
  const parsed = parseJsonWithPosition(text, CONFIG_REL);
  if ('problem' in parsed) return { rules: [], problems: [parsed.problem], config: {} };
  const { value: config, problems } = checkDocument(parsed.value, LoupeConfigSchema, CONFIG_REL, text);
  const raw = parsed.value as { edits?: { mode?: unknown }; permissions?: unknown } | null;
  // An unreadable mode errs on the careful side: asking before an edit loses nothing.
  const editsMode: EditsMode | undefined = config.edits?.mode ?? (raw?.edits?.mode === undefined ? undefined : 'ask');
  // Each rule names its place in the file, counting the ones left out.
  const places = (Array.isArray(raw?.permissions) ? raw.permissions : []).flatMap((r, i) => (PermissionRuleSchema.safeParse(r).success ? [i] : []));
  const rules = (config.permissions ?? []).map((r, i): SourcedRule => ({ ...r, source: 'project', origin: `${CONFIG_REL} permissions[${places[i]}]` }));
  const tests = config.tests && Object.keys(config.tests).length ? config.tests : undefined;
  return { rules, problems, config, ...(editsMode ? { editsMode } : {}), ...(tests ? { tests } : {}) };
}
