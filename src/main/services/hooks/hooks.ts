// A workspace's hooks (docs/architecture.md, "Hooks"), built once per workspace by the composition
// root. It reads where hooks come from (the person's `~/.claude/settings.json` and Loupe settings,
// the repository's `.claude/settings.json`, `.claude/settings.local.json` and `.loupe/config.json`),
// matches an event's handlers, and runs them in parallel, each bounded by its timeout. It knows
// nothing of tools: the caller gives the event's input in each dialect (Claude Code's names and
// shapes, or Loupe's) and reads the answers.
//
// The person's hooks are their own programs: they run as the person, like a command in their
// terminal. A repository's hooks are the repository's programs (the rule MCP servers follow): only
// while the folder is trusted with those files (ProjectConfig sets them aside otherwise), each only
// after the person approved its exact command line on a card of kind `hook` (kept per folder in the
// settings; a changed line asks again; a refusal holds while Loupe runs), inside the OS sandbox
// like a command, with no network unless its configuration lists hosts. What any hook writes in
// the workspace is recorded as a modification attributed to it.
import { InvalidArgumentError } from '../../errors';
import { DEFAULT_HOOK_TIMEOUT_S, PROJECT_HOOK_TIMEOUT_CAP_S, hookDigest, hookLine, matches, urlAllowed, type HookDecl, type HookDialect, type HookEvent, type HookOwner, type HookSource, type FileHooks } from '../config/hooksConfig';
import type { Logger } from '../log/logger';
import type { ApprovalAnswer, ApprovalRequest } from '../permissions/approvalQueue';
import type { ProjectRules } from '../permissions/projectConfig';
import type { SandboxPolicy } from '../sandbox/bwrapPolicy';
import type { CaptureRequest, CaptureResult } from '../snapshots/commandCapture';
import { interpret, type HookAnswer, type HookDecision } from './answer';
import { runCommandHook, runHttpHook, type RawRun } from './runHook';

/** Where the person's own hooks are kept. */
export interface HookUserStore {
  hooks(): FileHooks;
  hookApprovals(root: string): string[];
  approveHook(root: string, digest: string): Promise<void>;
  hooksDisabled(root: string): string[];
  setHookDisabled(root: string, digest: string, disabled: boolean): Promise<void>;
}

export interface HooksOptions {
  root: string;
  /** Loupe's settings.json. */
  user: HookUserStore;
  /** `~/.claude/settings.json`. */
  claudeUser: { hooks(): FileHooks };
  project: { load(): Promise<ProjectRules> };
  /** The workspace's approval queue: a repository's hook asks there before it first runs. */
  ask(request: Omit<ApprovalRequest, 'id' | 'createdAt'>, signal: AbortSignal): Promise<ApprovalAnswer>;
  /** The sandbox a repository's command hook runs in, or undefined where commands run outside it. */
  sandbox(hosts: readonly string[], label: string): Promise<SandboxPolicy | undefined>;
  /** Records what `run` wrote in the workspace as modifications of the request. */
  capture<T>(req: CaptureRequest, run: () => Promise<T>): Promise<{ value: T; capture: CaptureResult }>;
  logger: Logger;
  env?: NodeJS.ProcessEnv;
}

/** One handler as it runs: what it is and where it came from. */
export interface HookRef {
  digest: string;
  event: HookEvent;
  matcher: string;
  source: HookSource;
  owner: HookOwner;
  dialect: HookDialect;
  /** The command line or `POST url`. */
  line: string;
}

export interface HookResult {
  hook: HookRef;
  answer: HookAnswer;
  ms: number;
  sandboxed: boolean;
  /** What it wrote in the workspace (a group of modifications); null when nothing. */
  group_id: string | null;
}

/** The request a firing belongs to, and what the caller knows of the session. */
export interface FireContext {
  sessionId: string;
  correlationId?: string;
  /** The session's record (Claude Code's `transcript_path`). */
  transcriptPath?: string;
  /** Stop ends every hook of the request. */
  signal?: AbortSignal;
  /** `act` or `plan`, as Claude Code's `permission_mode` says it (`default`, `plan`). */
  permissionMode?: string;
}

export interface FireRequest extends FireContext {
  event: HookEvent;
  /** What a matcher is tested against in each dialect (a tool's name, a session's source); absent: the event has no matcher. */
  target?: (dialect: HookDialect) => string;
  /** The event's own fields in each dialect (`tool_name`, `tool_input`, `prompt`…). */
  input: (dialect: HookDialect) => Record<string, unknown>;
  /** Why the hook ran, for the modifications it makes ("after Edit src/a.ts"). */
  about?: string;
}

export type HookStatus = 'approved' | 'waiting' | 'disabled';

export interface HookListing {
  id: string;
  ref: HookRef;
  kind: 'command' | 'http';
  status: HookStatus;
  detail: string | null;
  /** Runs in the OS sandbox (a repository's command); null: not a process, or not decided. */
  sandboxed: boolean | null;
  timeout_s: number;
  last: { at: string; event: HookEvent; decision: HookDecision; ms: number; reason?: string } | null;
}

interface Candidate {
  decl: HookDecl;
  ref: HookRef;
  status: HookStatus;
  detail: string | null;
}

export class Hooks {
  /** Digests the person declined while this process runs. */
  private readonly declined = new Set<string>();
  /** Digests approved "once": for as long as this process runs. */
  private readonly approvedHere = new Set<string>();
  /** One question per digest at a time: events that fire meanwhile wait for the same answer. */
  private readonly asking = new Map<string, Promise<boolean>>();
  private readonly last = new Map<string, HookListing['last']>();
  private readonly listeners = new Set<() => void>();
  private readonly stop = new AbortController();
  /** `loupe run --trust`: the hooks the trusted config names count as approved while this process runs. */
  private configuredApproved = false;
  private readonly env: NodeJS.ProcessEnv;

  constructor(private readonly opts: HooksOptions) {
    this.env = opts.env ?? process.env;
  }

  approveConfigured(): void {
    this.configuredApproved = true;
    this.changed();
  }

  /** The files or the folder's trust changed: listeners read the list again. */
  refresh(): void {
    this.changed();
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Every hook the files declare, with whether it runs and why not. */
  async list(): Promise<HookListing[]> {
    const all = await this.candidates();
    const sandboxed = all.some((c) => c.decl.owner === 'project') ? !!(await this.opts.sandbox([], 'listing')) : false;
    return all.map((c) => {
      const h = c.decl.handler;
      return {
        id: `${c.decl.source}#${c.decl.at}`,
        ref: c.ref,
        kind: h.type,
        status: c.status,
        detail: c.detail,
        sandboxed: h.type === 'command' ? c.decl.owner === 'project' && sandboxed : null,
        timeout_s: this.timeoutMs(c.decl) / 1000,
        last: this.last.get(this.lastKey(c.ref)) ?? null,
      };
    });
  }

  /** Whether any hook could run for this event (so callers skip building inputs when none would). */
  async has(event: HookEvent): Promise<boolean> {
    return (await this.candidates()).some((c) => c.decl.event === event && c.status !== 'disabled');
  }

  /** The person approves a repository's hook from the settings (kept, as "always" on its card). */
  async approve(id: string): Promise<void> {
    const c = (await this.candidates()).find((x) => `${x.decl.source}#${x.decl.at}` === id);
    if (!c) throw new InvalidArgumentError(`No hook ${id} in this folder's configuration.`);
    this.declined.delete(c.ref.digest);
    await this.opts.user.approveHook(this.opts.root, c.ref.digest);
    this.changed();
  }

  async setDisabled(id: string, disabled: boolean): Promise<void> {
    const c = (await this.candidates()).find((x) => `${x.decl.source}#${x.decl.at}` === id);
    if (!c) throw new InvalidArgumentError(`No hook ${id} in this folder's configuration.`);
    await this.opts.user.setHookDisabled(this.opts.root, c.ref.digest, disabled);
    this.changed();
  }

  private async candidates(): Promise<Candidate[]> {
    const claudeUser = this.opts.claudeUser.hooks();
    const loupeUser = this.opts.user.hooks();
    const project = await this.opts.project.load();
    const personOff = claudeUser.disableAll || loupeUser.disableAll;
    const urls = [...claudeUser.httpUrls, ...loupeUser.httpUrls];
    const disabledHere = new Set(this.opts.user.hooksDisabled(this.opts.root));
    const approved = new Set(this.opts.user.hookApprovals(this.opts.root));
    const out: Candidate[] = [];
    const add = (decl: HookDecl, trusted: boolean) => {
      const h = decl.handler;
      const ref: HookRef = { digest: hookDigest(h), event: decl.event, matcher: decl.matcher, source: decl.source, owner: decl.owner, dialect: decl.dialect, line: hookLine(h) };
      const [status, detail] = ((): [HookStatus, string | null] => {
        if (personOff) return ['disabled', '"disableAllHooks": true in your settings'];
        if (decl.owner === 'project' && project.hooksDisabled) return ['disabled', `"disableAllHooks": true in the repository's settings`];
        if (disabledHere.has(ref.digest)) return ['disabled', 'you turned it off in this folder'];
        if (h.type === 'http' && !urlAllowed(h.url, urls)) return ['disabled', `its URL is not in "allowedHttpHookUrls" of your settings, so nothing is posted to it`];
        if (decl.owner === 'user') return ['approved', null];
        if (!trusted) return ['waiting', `not run: waiting for you to trust this folder with ${decl.source}`];
        if (this.configuredApproved || approved.has(ref.digest) || this.approvedHere.has(ref.digest)) return ['approved', null];
        if (this.declined.has(ref.digest)) return ['waiting', 'you declined to run it; approve it here to run it'];
        return ['waiting', 'waiting for your approval: a card asks before it first runs'];
      })();
      out.push({ decl, ref, status, detail });
    };
    for (const d of claudeUser.hooks) add(d, true);
    for (const d of loupeUser.hooks) add(d, true);
    for (const d of project.hooks ?? []) add(d, true);
    for (const d of project.ignored?.hooks ?? []) add(d, false);
    return out;
  }

  /**
   * Runs the handlers of `event` whose matcher fits, in parallel, once each (the same handler
   * written twice runs once: the person's first). Each comes back within its timeout; a
   * repository's hook not yet approved asks first (and does not run if refused).
   */
  async fire(req: FireRequest): Promise<HookResult[]> {
    const all = (await this.candidates()).filter((c) => c.decl.event === req.event);
    if (!all.length) return [];
    const seen = new Set<string>();
    const chosen = all.filter((c) => {
      if (c.status === 'disabled') return false;
      if (c.decl.owner === 'project' && c.detail?.startsWith('not run: waiting for you to trust')) return false;
      if (req.target && !matches(c.decl.matcher, req.target(c.decl.dialect))) return false;
      if (seen.has(c.ref.digest)) return false;
      seen.add(c.ref.digest);
      return true;
    });
    const runs = chosen.map(async (c): Promise<HookResult | null> => {
      if (c.status === 'waiting' && !(await this.approval(c, req.signal))) return null;
      if (c.decl.handler.type === 'command' && c.decl.handler.async) {
        void this.runOne(c, req).catch((err) => this.opts.logger.warn('hooks.async_failed', { hook: c.ref.line, error: err }));
        return null;
      }
      return this.runOne(c, req);
    });
    return (await Promise.all(runs)).filter((r): r is HookResult => r !== null);
  }

  private timeoutMs(decl: HookDecl): number {
    const s = decl.handler.timeout ?? DEFAULT_HOOK_TIMEOUT_S;
    return Math.round((decl.owner === 'project' ? Math.min(s, PROJECT_HOOK_TIMEOUT_CAP_S) : s) * 1000);
  }

  private async runOne(c: Candidate, req: FireRequest): Promise<HookResult> {
    const { decl, ref } = c;
    const input = JSON.stringify({
      session_id: req.sessionId,
      transcript_path: req.transcriptPath ?? '',
      cwd: this.opts.root,
      permission_mode: req.permissionMode ?? 'default',
      hook_event_name: req.event,
      ...req.input(decl.dialect),
    });
    const timeoutMs = this.timeoutMs(decl);
    const h = decl.handler;
    let raw: RawRun;
    let group: string | null = null;
    if (h.type === 'http') {
      raw = await runHttpHook({ handler: h, input, env: this.env, timeoutMs, ...(req.signal ? { signal: req.signal } : {}) });
    } else {
      const sandbox = decl.owner === 'project' ? await this.opts.sandbox(h.network?.hosts ?? [], `${decl.event} hook ${ref.line}`) : undefined;
      const env = { ...(decl.owner === 'user' ? this.env : inheritedEnv(this.env)), CLAUDE_PROJECT_DIR: this.opts.root, LOUPE_PROJECT_DIR: this.opts.root };
      const reason = `${decl.event} hook from ${decl.source}${req.about ? ` ${req.about}` : ''}`;
      const captured = await this.opts.capture({ tool: 'hook', command: ref.line, sessionId: req.sessionId, ...(req.correlationId ? { correlationId: req.correlationId } : {}), reason }, () =>
        runCommandHook({ handler: h, input, cwd: this.opts.root, env, timeoutMs, ...(req.signal ? { signal: req.signal } : {}), ...(sandbox ? { sandbox } : {}) }),
      );
      raw = captured.value;
      group = captured.capture.group_id;
    }
    const answer = interpret(req.event, raw);
    this.last.set(this.lastKey(ref), { at: new Date().toISOString(), event: req.event, decision: answer.decision, ms: raw.ms, ...(answer.reason ? { reason: answer.reason } : {}) });
    if (answer.decision === 'warn' || answer.decision === 'error') this.opts.logger.warn('hooks.failed', { event: req.event, hook: ref.line, source: ref.source, decision: answer.decision, reason: answer.reason });
    this.changed();
    return { hook: ref, answer, ms: raw.ms, sandboxed: raw.sandboxed, group_id: group };
  }

  private lastKey(ref: HookRef): string {
    return `${ref.source}\0${ref.event}\0${ref.matcher}\0${ref.digest}`;
  }

  /** A repository's hook runs only once the person said yes to its exact line. */
  private approval(c: Candidate, signal?: AbortSignal): Promise<boolean> {
    if (this.declined.has(c.ref.digest)) return Promise.resolve(false);
    const pending = this.asking.get(c.ref.digest);
    if (pending) return pending;
    const asked = (async () => {
      const signals = [this.stop.signal, ...(signal ? [signal] : [])];
      // Where it would run is decided before asking, so the card says what will happen here.
      const h = c.decl.handler;
      const sandboxed = h.type === 'command' ? Boolean(await this.opts.sandbox(h.network?.hosts ?? [], `${c.decl.event} hook ${c.ref.line}`)) : null;
      const answer = await this.opts
        .ask(
          {
            kind: 'hook',
            tool: c.decl.event,
            summary: `run the repository's ${c.decl.event} hook: ${c.ref.line}`,
            reason: `${c.decl.source} names it; it is a program from this repository, so it runs only with your approval of this exact command line (asked again if it changes)`,
            rule: null,
            always: [],
            details: describeHook(c.decl, sandboxed),
            ...(sandboxed !== null ? { sandboxed } : {}),
          },
          AbortSignal.any(signals),
        )
        .catch((): ApprovalAnswer => ({ answer: 'deny', unattended: true }));
      if (answer.answer === 'deny') {
        if (!('unattended' in answer && answer.unattended)) this.declined.add(c.ref.digest);
        return false;
      }
      this.approvedHere.add(c.ref.digest);
      if (answer.answer === 'always') await this.opts.user.approveHook(this.opts.root, c.ref.digest).catch((err) => this.opts.logger.warn('hooks.approval_not_saved', { hook: c.ref.line, error: err }));
      return true;
    })().finally(() => {
      this.asking.delete(c.ref.digest);
      this.changed();
    });
    this.asking.set(c.ref.digest, asked);
    this.changed();
    return asked;
  }

  dispose(): void {
    this.stop.abort();
    this.listeners.clear();
  }

  private changed(): void {
    for (const l of this.listeners) {
      try {
        l();
      } catch {
        // A broken listener must not stop the others.
      }
    }
  }
}

/** Everything that decides what runs, for the approval card: where it will run here, as decided now. */
function describeHook(d: HookDecl, sandboxed: boolean | null): string {
  const h = d.handler;
  const lines = [hookLine(h), `event: ${d.event}${d.matcher ? `, matcher: ${d.matcher}` : ''}`, `from ${d.source} (${d.at})`];
  if (h.type === 'command' && sandboxed) lines.push(`runs inside the OS sandbox: the workspace is writable; ${h.network?.hosts.length ? `network only to ${h.network.hosts.join(', ')}` : 'no network'}`);
  else if (h.type === 'command') lines.push('runs OUTSIDE the sandbox, as commands do here (it is off, or none works on this machine): it can read and write what you can and reach any network');
  else lines.push(`posts the event's JSON to ${h.url}`);
  return lines.join('\n');
}

/** A repository's hook gets the few variables a program needs, never Loupe's (API keys stay out). */
function inheritedEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const keep = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ'];
  return Object.fromEntries(keep.flatMap((k) => (env[k] !== undefined ? [[k, env[k]!]] : [])));
}
