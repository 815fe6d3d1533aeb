// The `hooks` key (docs/architecture.md, "Hooks"): Claude Code's shape, read unchanged from the
// person's `~/.claude/settings.json`, the repository's `.claude/settings.json` and
// `.claude/settings.local.json`, and, in the same shape, from Loupe's `settings.json` and
// `.loupe/config.json`. One schema for all five files. A handler is taken whole or not at all (its
// keys only mean something together), each problem is said with its line and column, and a file's
// other keys (Claude Code's permissions, model, env…) are none of this reader's business.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { checkDocument, checkText, problemAt, type ConfigProblem, type Path } from './validate';

/** The events Loupe fires, named as Claude Code names them. */
export const HOOK_EVENTS = [
  'SessionStart',
  'SessionEnd',
  'UserPromptSubmit',
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'PreCompact',
  'Stop',
  'Notification',
  'SubagentStart',
  'SubagentStop',
] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** When no handler says otherwise: Claude Code's documented default for a command hook. */
export const DEFAULT_HOOK_TIMEOUT_S = 60;
/** A repository's hook can lower its timeout, never raise it past this: the turn must not wait on it for long. */
export const PROJECT_HOOK_TIMEOUT_CAP_S = 600;

const NetworkSchema = z.strictObject({ hosts: z.array(z.string().min(1)) });

const CommandHandlerSchema = z.object({
  type: z.literal('command'),
  /** Shell form: a command line for the shell. Exec form (with `args`): the program, started directly. */
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  /** Seconds before the hook's process group is killed (default 60). */
  timeout: z.number().positive().optional(),
  /** Claude Code's shell choice; Loupe runs `bash` (or `sh` where there is none). */
  shell: z.enum(['bash', 'sh']).optional(),
  statusMessage: z.string().optional(),
  /** Runs without the event waiting for it; its answer decides nothing. */
  async: z.boolean().optional(),
  /** Loupe's own: the hosts a sandboxed hook may reach (through the sandbox's proxy); none: no network. */
  network: NetworkSchema.optional(),
});

const HttpHandlerSchema = z.object({
  type: z.literal('http'),
  url: z.string().regex(/^https?:\/\//i, 'must start with http:// or https://'),
  headers: z.record(z.string(), z.string()).optional(),
  /** The environment variables `$VAR` in `headers` may name; any other is sent empty, as in Claude Code. */
  allowedEnvVars: z.array(z.string()).optional(),
  timeout: z.number().positive().optional(),
  statusMessage: z.string().optional(),
});

const OTHER_TYPES = ['prompt', 'agent', 'mcp_tool'];

export const HookHandlerSchema = z.discriminatedUnion('type', [CommandHandlerSchema, HttpHandlerSchema]);
export type HookHandler = z.output<typeof HookHandlerSchema>;
export type CommandHandler = z.output<typeof CommandHandlerSchema>;
export type HttpHandler = z.output<typeof HttpHandlerSchema>;

/** One entry of an event's list: a matcher and its handlers (each checked on its own). */
const MatcherGroupSchema = z.object({
  matcher: z.string().optional(),
  hooks: z.array(z.unknown()).optional(),
});

export const HooksSchema = z.record(z.string(), z.array(MatcherGroupSchema));

/** The keys about hooks a settings file may hold, in Claude Code's spelling. */
export const HooksSettingsShape = {
  hooks: HooksSchema.optional(),
  /** true: no hook of this file's owner runs (the person's: none at all). */
  disableAllHooks: z.boolean().optional(),
  /** The URLs `type: "http"` hooks may post to (`*` matches any characters); honoured in the person's files only. */
  allowedHttpHookUrls: z.array(z.string().min(1)).optional(),
};
export const HooksSettingsSchema = z.object(HooksSettingsShape);
export type HooksSettings = Partial<z.output<typeof HooksSettingsSchema>>;

/** Who wrote a hook: the person (their files, every folder) or the repository (files in the folder). */
export type HookOwner = 'user' | 'project';

/**
 * What names and input shapes a hook is given: Claude Code's (`Bash`, `{command}`, absolute
 * paths) for hooks written in Claude Code's files, Loupe's (`bash`, its own arguments) for hooks
 * in Loupe's files.
 */
export type HookDialect = 'claude' | 'loupe';

/** The files hooks come from, as a person would name them: a hook's `source`. */
export const HOOK_SOURCES = {
  claudeUser: '~/.claude/settings.json',
  loupeUser: 'settings.json',
  claudeProject: '.claude/settings.json',
  claudeLocal: '.claude/settings.local.json',
  loupeProject: '.loupe/config.json',
} as const;
export type HookSource = (typeof HOOK_SOURCES)[keyof typeof HOOK_SOURCES];

export const ownerOf = (source: HookSource): HookOwner => (source === HOOK_SOURCES.claudeUser || source === HOOK_SOURCES.loupeUser ? 'user' : 'project');
export const dialectOf = (source: HookSource): HookDialect => (source === HOOK_SOURCES.loupeUser || source === HOOK_SOURCES.loupeProject ? 'loupe' : 'claude');

/** One handler of one event, with where it was written. */
export interface HookDecl {
  event: HookEvent;
  /** As written; empty or absent matches everything. */
  matcher: string;
  handler: HookHandler;
  source: HookSource;
  owner: HookOwner;
  dialect: HookDialect;
  /** Where in its file: `hooks.PreToolUse[0].hooks[1]`. */
  at: string;
}

const label = (p: Path): string => p.reduce<string>((acc, k) => (typeof k === 'number' ? `${acc}[${k}]` : acc ? `${acc}.${k}` : k), '');

/**
 * The valid handlers of one file's `hooks` as declarations. An event Loupe does not fire, a
 * handler type it does not run and a malformed handler are each a problem where they are
 * written, and left out; the rest stands.
 */
export function declaredHooks(hooks: z.output<typeof HooksSchema> | undefined, source: HookSource, file: string, text?: string): { hooks: HookDecl[]; problems: ConfigProblem[] } {
  const out: HookDecl[] = [];
  const problems: ConfigProblem[] = [];
  for (const [event, groups] of Object.entries(hooks ?? {})) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      problems.push(problemAt(file, text, ['hooks', event], `Loupe does not fire "${event}" (it fires ${HOOK_EVENTS.join(', ')}); these hooks do not run`));
      continue;
    }
    groups.forEach((group, g) => {
      const at: Path = ['hooks', event, g];
      if (!group.hooks?.length) {
        problems.push(problemAt(file, text, at, 'has no "hooks" list; nothing runs for it'));
        return;
      }
      if (group.matcher !== undefined) {
        const bad = matcherProblem(group.matcher);
        if (bad) {
          problems.push(problemAt(file, text, [...at, 'matcher'], `${bad}; its hooks do not run`));
          return;
        }
      }
      group.hooks.forEach((raw, h) => {
        const where: Path = [...at, 'hooks', h];
        const type = raw && typeof raw === 'object' ? (raw as { type?: unknown }).type : undefined;
        if (typeof type === 'string' && OTHER_TYPES.includes(type)) {
          problems.push(problemAt(file, text, [...where, 'type'], `Loupe runs "command" and "http" hooks, not "${type}"; this one does not run`));
          return;
        }
        const parsed = HookHandlerSchema.safeParse(raw);
        if (!parsed.success) {
          for (const issue of parsed.error.issues) {
            const sub = issue.path.map((k) => (typeof k === 'symbol' ? String(k) : k));
            const at = problemAt(file, text, [...where, ...sub], `${issue.message}; this hook does not run`);
            // A key that is missing is said where the hook is written.
            problems.push(at.line === null && text !== undefined ? problemAt(file, text, where, `${sub.join('.')}: ${issue.message}; this hook does not run`) : at);
          }
          return;
        }
        const known = Object.keys(parsed.data.type === 'command' ? CommandHandlerSchema.shape : HttpHandlerSchema.shape);
        for (const k of Object.keys(raw as object)) {
          if (!known.includes(k)) problems.push(problemAt(file, text, [...where, k], `unknown key "${k}", ignored (known here: ${known.join(', ')})`));
        }
        out.push({ event: event as HookEvent, matcher: group.matcher ?? '', handler: parsed.data, source, owner: ownerOf(source), dialect: dialectOf(source), at: label(where) });
      });
    });
  }
  return { hooks: out, problems };
}

/** Why a matcher cannot be used (a regular expression that does not compile), or null. */
export function matcherProblem(matcher: string): string | null {
  if (matcher === '*' || isPlainMatcher(matcher)) return null;
  try {
    new RegExp(matcher);
    return null;
  } catch (err) {
    return `"${matcher}" is not a valid regular expression (${(err as Error).message})`;
  }
}

/** Letters, digits, `_` and `|` only: an exact name or a list of names, as Claude Code reads it. */
const isPlainMatcher = (m: string): boolean => /^[A-Za-z0-9_|]*$/.test(m);

/**
 * Claude Code's matching: empty or `*` matches everything; letters, digits, `_` and `|` are an
 * exact name or `a|b` list; anything else is a JavaScript regular expression tested against the
 * name (unanchored, as there).
 */
export function matches(matcher: string, target: string): boolean {
  if (matcher === '' || matcher === '*') return true;
  if (isPlainMatcher(matcher)) return matcher.split('|').includes(target);
  try {
    return new RegExp(matcher).test(target);
  } catch {
    return false;
  }
}

const quote = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** What runs, as one line: the shell command, the exec form's quoted words, or the URL. What an approval card shows. */
export function hookLine(h: HookHandler): string {
  if (h.type === 'http') return `POST ${h.url}`;
  return h.args ? [h.command, ...h.args].map(quote).join(' ') : h.command;
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])]));
  return v;
}

/**
 * Names what a handler runs: its type, its command line (or URL and headers) and its network. An
 * approval holds while this stays the same; a timeout or a status message may change freely.
 * Two identical handlers (in one file or across files) have the same digest and run once.
 */
export function hookDigest(h: HookHandler): string {
  const what = h.type === 'command' ? { type: h.type, command: h.command, args: h.args ?? null, shell: h.shell ?? null, network: h.network?.hosts ?? null } : { type: h.type, url: h.url, headers: h.headers ?? null, env: h.allowedEnvVars ?? null };
  return createHash('sha256').update(JSON.stringify(canonical(what))).digest('hex');
}

/** `*` matches any run of characters; everything else is literal. */
export function urlAllowed(url: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => new RegExp(`^${p.split('*').map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`).test(url));
}

/** What one file says about hooks: its valid handlers, its `disableAllHooks`, its URL list, its problems. */
export interface FileHooks {
  hooks: HookDecl[];
  disableAll: boolean;
  httpUrls: string[];
  problems: ConfigProblem[];
}

export const NO_FILE_HOOKS: FileHooks = { hooks: [], disableAll: false, httpUrls: [], problems: [] };

/**
 * A Claude Code settings file read for its hooks alone: `hooks`, `disableAllHooks` and
 * `allowedHttpHookUrls` are checked where they are written; every other key is Claude Code's
 * and left alone. A file that does not parse is one problem and no hooks.
 */
export function claudeFileHooks(text: string, source: HookSource, file: string): FileHooks {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    const checked = checkText(text, HooksSettingsSchema, file);
    return { ...NO_FILE_HOOKS, problems: checked.problems };
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return { ...NO_FILE_HOOKS, problems: [{ file, line: 1, column: 1, message: 'the file must hold a JSON object; its hooks do not run' }] };
  const d = doc as Record<string, unknown>;
  const picked = Object.fromEntries(Object.keys(HooksSettingsShape).filter((k) => d[k] !== undefined).map((k) => [k, d[k]]));
  const { value, problems } = checkDocument(picked, HooksSettingsSchema, file, text);
  const found = fileHooks(value, source, file, text);
  return { ...found, problems: [...problems, ...found.problems] };
}

/** The hooks keys of an already checked settings value (Loupe's files, or a Claude file's picked keys). */
export function fileHooks(value: HooksSettings, source: HookSource, file: string, text?: string): FileHooks {
  const declared = declaredHooks(value.hooks, source, file, text);
  return { hooks: declared.hooks, disableAll: value.disableAllHooks === true, httpUrls: value.allowedHttpHookUrls ?? [], problems: declared.problems };
}

/** Whether a file's bytes declare any hook (what makes its bytes part of a folder's trust). */
export function declaresHooks(bytes: Buffer | null): boolean {
  if (!bytes) return false;
  try {
    const doc = JSON.parse(bytes.toString('utf8')) as { hooks?: unknown } | null;
    return !!doc && typeof doc === 'object' && !!doc.hooks && typeof doc.hooks === 'object' && Object.keys(doc.hooks).length > 0;
  } catch {
    return false;
  }
}
