// Permission precedence (docs/architecture.md): deny, then ask, then allow, then the built-in default, and every decision says
// which rule made it. `decide` has no side effects, so it doubles as the dry run ("what would
// happen to this command, path or URL, and why").
import path from 'node:path';
import { isProtectedPath } from '../modlog/modificationLog';
import { resolveInWorkspace, toPosix } from '../workspace/pathGuard';
import { alwaysCommandRules, alwaysFolderPattern, alwaysUrlPattern } from './alwaysPatterns';
import { analyseCommand, type PathRef } from './commandAnalysis';
import { destructiveReasons } from './risk';
import { judgePaths, mayMatchUnder } from './pathDecisions';
import { coversPath, expandHome, matchCommand, matchPath, matchTool, matchUrl, pathCoverer, pathMatcher } from './patterns';
import type { SandboxAvailability } from '../sandbox/types';
import { networkGrant, planSandbox, type SandboxPlan } from './sandboxPlan';
import { readOnlyVerdict, type ReadOnlyVerdict } from './readOnly';
import { commandHostPorts, decideHost, hostPortAdvice, loopbackAddresses, type HostDecision, type HostTarget } from './hostRules';
import type { HostPort } from '../sandbox/net/types';
import type { EditsMode, ProjectRules } from './projectConfig';
import { describeRule, type Decision, type PermissionAction, type PermissionKind, type PermissionRule, type SourcedRule } from './types';

export type PermissionQuery =
  | { kind: 'bash' | 'test'; command: string; cwd?: string }
  | { kind: 'read' | 'edit'; path: string }
  | { kind: 'external_directory'; path: string }
  /** `privateAddress` names what the host resolved to when that is loopback/private/link-local/metadata. */
  | { kind: 'webfetch'; url: string; privateAddress?: string | null }
  /** A tool of an MCP server; `readOnly`: the server marks it so (a `read_only` rule applies only then). */
  | { kind: 'mcp'; server: string; tool: string; readOnly: boolean };

export interface EngineOptions {
  /** Workspace root, already a realpath. */
  root: string;
  project: { load(): Promise<ProjectRules> };
  userRules?: () => PermissionRule[];
  /** The user's own rules for this folder only (settings.json `folder_permissions`). */
  userFolderRules?: () => PermissionRule[];
  /** `edits.mode`: 'ask' turns edits into approval cards. Absent: the project's config says. */
  editsMode?: () => EditsMode;
  /** Whether an OS sandbox works here (commands run inside it when the config says "auto"). */
  sandbox?: () => Promise<SandboxAvailability>;
  /** The user's own "sandbox" setting: applies where the project's config does not say. */
  userSandbox?: () => 'auto' | 'off' | undefined;
}

/** Built-in defaults: not rules, so any rule beats them. */
const DEFAULTS: Record<PermissionKind, PermissionAction> = {
  read: 'allow',
  edit: 'allow',
  bash: 'ask',
  webfetch: 'ask',
  external_directory: 'ask',
  test: 'ask',
  // Not asked through decide(): the sandbox plan reads network rules; no rule, no network.
  network: 'deny',
  mcp: 'ask',
};


type Matcher = (pattern: string) => boolean;

const NESTED_PROTECTED = /(^|\/)(\.git|\.loupe)(\/|$)/i;

export class PermissionEngine {
  private readonly session: SourcedRule[] = [];

  constructor(private readonly opts: EngineOptions) {}

  /** A rule for the rest of this session only (not written anywhere). */
  addSessionRule(rule: PermissionRule): void {
    this.session.push({ ...rule, source: 'session', origin: 'this session' });
  }

  /** The project config as it applies now: without its grants while the folder is untrusted. */
  project(): Promise<ProjectRules> {
    return this.opts.project.load();
  }

  /** Every rule in force, session first: the order names the winner among equals. */
  async rules(): Promise<SourcedRule[]> {
    return (await this.loadRules()).rules;
  }

  private async loadRules(): Promise<{ rules: SourcedRule[]; editsMode: EditsMode }> {
    const project = await this.opts.project.load();
    const editsMode = this.opts.editsMode?.() ?? project.editsMode ?? 'review';
    const user = (this.opts.userRules?.() ?? []).map((r, i): SourcedRule => ({ ...r, source: 'user', origin: `user settings permissions[${i}]` }));
    const mine = (this.opts.userFolderRules?.() ?? []).map((r, i): SourcedRule => ({ ...r, source: 'user', origin: `user settings folder_permissions[${i}] (this folder, only you)` }));
    return { rules: [...this.session, ...project.rules, ...mine, ...user], editsMode };
  }

  /**
   * How a command would run: inside the sandbox or not (and why), with or without the network.
   * `extra`: allow rules in force for this request only (a skill's allowed-tools).
   */
  async sandboxPlan(command: string, extra: SourcedRule[] = []): Promise<SandboxPlan> {
    const project = await this.opts.project.load();
    const rules = [...(await this.loadRules()).rules, ...extra];
    const availability = (await this.opts.sandbox?.()) ?? { available: false, kind: null, reason: 'no sandbox probe was given', install: null };
    const parts = (await analyseCommand(command)).commands.filter((c) => !c.control).map((c) => c.text);
    return planSandbox(this.sandboxMode(project), availability, parts, rules);
  }

  /** Whether the command line only reads (plan mode runs nothing else). */
  async readOnly(command: string): Promise<ReadOnlyVerdict> {
    return readOnlyVerdict(await analyseCommand(command));
  }

  /** Whether a sandboxed command with a network grant may reach this host through its proxy. */
  async decideHost(command: string, target: HostTarget): Promise<HostDecision> {
    const { rules } = await this.loadRules();
    const parts = (await analyseCommand(command)).commands.filter((c) => !c.control).map((c) => c.text);
    return decideHost(parts, rules, target);
  }

  /** The ports of this machine the command's network rules forward into its sandbox (only with its network grant). */
  async hostPorts(command: string): Promise<HostPort[]> {
    const { rules } = await this.loadRules();
    const parts = await this.commandParts(command);
    return commandHostPorts(parts, rules, networkGrant(parts, rules).network);
  }

  /**
   * Why the command could not reach this machine's `host:port`, and the rules that would let it;
   * `offUntilTrusted`: a rule of the folder's own config would, once the folder is trusted.
   */
  async hostPortAdvice(command: string, host: string, port: number): Promise<ReturnType<typeof hostPortAdvice> & { offUntilTrusted: boolean }> {
    const project = await this.opts.project.load();
    const { rules } = await this.loadRules();
    const parts = await this.commandParts(command);
    const advice = hostPortAdvice(parts, rules, host, port);
    const ignored = project.trusted === false ? (project.ignored?.rules ?? []) : [];
    const all = [...rules, ...ignored];
    const offUntilTrusted = ignored.length > 0 && !advice.deniedBy && commandHostPorts(parts, all, networkGrant(parts, all).network).some((f) => f.port === port && (loopbackAddresses(host) ?? []).includes(f.listen));
    return { ...advice, offUntilTrusted };
  }

  private async commandParts(command: string): Promise<string[]> {
    return (await analyseCommand(command)).commands.filter((c) => !c.control).map((c) => c.text);
  }

  /** A trusted project's key wins, then the user's; an untrusted "off" was already set aside. */
  sandboxMode(project: ProjectRules): 'auto' | 'off' {
    return project.config.sandbox ?? this.opts.userSandbox?.() ?? 'auto';
  }

  /** `extra`: allow rules in force for this request only (a skill's allowed-tools), after every other. */
  async decide(q: PermissionQuery, extra: SourcedRule[] = []): Promise<Decision> {
    const { rules, editsMode } = await this.loadRules();
    return this.decideWith(q, [...rules, ...extra], editsMode);
  }

  /**
   * What would be decided if the folder were trusted: null when it is (or its config grants
   * nothing), so a card can say that a rule of the folder's own config would allow this.
   */
  async decideIfTrusted(q: PermissionQuery, extra: SourcedRule[] = []): Promise<Decision | null> {
    const project = await this.opts.project.load();
    if (project.trusted !== false || !project.ignored?.rules.length) return null;
    const { rules, editsMode } = await this.loadRules();
    return this.decideWith(q, [...rules, ...extra, ...project.ignored.rules], editsMode);
  }

  private async decideWith(q: PermissionQuery, rules: SourcedRule[], editsMode: EditsMode): Promise<Decision> {
    switch (q.kind) {
      case 'bash':
      case 'test':
        return this.command(q.kind, q.command, q.cwd ?? this.opts.root, rules);
      case 'read':
      case 'edit':
        return this.file(q.kind, q.path, rules, editsMode);
      case 'external_directory':
        return this.outside(path.resolve(this.opts.root, expandHome(q.path)), rules);
      case 'webfetch':
        return this.url(q.url, q.privateAddress ?? null, rules);
      case 'mcp':
        return this.mcpTool(q.server, q.tool, q.readOnly, rules);
    }
  }

  /**
   * `server/tool`: deny and ask rules reach it in any letter case (a deny written `github/delete_*`
   * also holds for `Delete_repo`), allow rules name it exactly; a `read_only` rule speaks only for
   * tools the server marks read-only. "Allow always" saves exactly this server and tool.
   */
  private mcpTool(server: string, tool: string, readOnly: boolean, rules: SourcedRule[]): Decision {
    const subject = `${server}/${tool}`;
    const applies = rules.filter((r) => r.kind !== 'mcp' || !r.read_only || readOnly);
    const hit = this.match('mcp', applies, (p) => matchTool(p, subject), (p) => matchTool(p, subject, true));
    return this.byRuleOrDefault('mcp', subject, hit, [{ kind: 'mcp', pattern: subject, action: 'allow' }]);
  }

  private match(kind: PermissionKind, rules: SourcedRule[], matches: Matcher, denyMatches: Matcher = matches): { action: PermissionAction; rule: SourcedRule } | null {
    // A test command is a shell command: what bash may not run, tests may not run either.
    const kindFor = (r: SourcedRule, action: PermissionAction) => r.kind === kind || (kind === 'test' && action === 'deny' && r.kind === 'bash');
    for (const action of ['deny', 'ask', 'allow'] as const) {
      const test = action === 'allow' ? matches : denyMatches;
      const hits = (r: SourcedRule) => kindFor(r, action) && r.action === action && test(r.pattern);
      // Among allow rules, one that lets the command run outside the sandbox names the decision.
      const rule = (action === 'allow' ? rules.find((r) => r.sandbox === false && hits(r)) : undefined) ?? rules.find(hits);
      if (rule) return { action, rule };
    }
    return null;
  }

  private byRuleOrDefault(kind: PermissionKind, subject: string, hit: { action: PermissionAction; rule: SourcedRule } | null, always: PermissionRule[], fallback = DEFAULTS[kind]): Decision {
    if (hit) return { action: hit.action, kind, subject, rule: hit.rule, reason: `${subject}: matches the rule ${describeRule(hit.rule)}`, always: hit.action === 'allow' ? [] : always };
    return { action: fallback, kind, subject, rule: null, reason: `${subject}: no rule matches, so the default for ${kind} applies (${fallback})`, always: fallback === 'allow' ? [] : always, byDefault: true };
  }

  private async file(kind: 'read' | 'edit', requested: string, rules: SourcedRule[], editsMode: EditsMode): Promise<Decision> {
    let rel: string;
    try {
      rel = (await resolveInWorkspace(this.opts.root, expandHome(requested))).rel;
    } catch {
      return this.outside(path.resolve(this.opts.root, expandHome(requested)), rules);
    }
    const fallback = kind === 'edit' && editsMode === 'ask' ? 'ask' : DEFAULTS[kind];
    const hit = this.match(kind, rules, ...this.pathMatchers(rel));
    // Loupe's own state and Git's internals (hooks, config run code later): never routine, so
    // no allow rule or default lets a write there through.
    if (kind === 'edit' && isProtectedPath(rel)) return this.protectedWrite(rel, hit);
    const d = this.byRuleOrDefault(kind, rel || '.', hit, [{ kind, pattern: rel, action: 'allow' }], fallback);
    if (!hit && fallback !== DEFAULTS[kind]) {
      d.reason = `${rel}: edits.mode is "ask" in .loupe/config.json, so every edit waits for approval before it is written`;
      d.byDefault = false;
    }
    return d;
  }

  /** allow: the rule names the path; deny and ask: the rule reaches it however it is spelled. */
  private pathMatchers(rel: string): [Matcher, Matcher] {
    // The absolute spelling only for a rule written as one (a search checks every listed path).
    let abs: string | undefined;
    return [(p) => matchPath(p, rel), (p) => coversPath(p, rel) || (path.isAbsolute(expandHome(p)) && coversPath(p, (abs ??= path.join(this.opts.root, rel))))];
  }

  /**
   * The read decision for many workspace-relative paths at once (search results), with the
   * rules loaded once; the same answer decide({kind:'read'}) gives for each.
   */
  async readDecider(): Promise<{ actionFor: (rel: string) => PermissionAction; limited: boolean }> {
    const { rules } = await this.loadRules();
    const reads = rules.filter((r) => r.kind === 'read');
    if (!reads.length) return { actionFor: () => DEFAULTS.read, limited: false };
    // match() for kind 'read', each rule's pattern compiled once: a search holds every path of
    // a 100,000-file tree to this (per path, match() cost as much as statting the file).
    const root = this.opts.root;
    const reaches = (pattern: string): ((rel: string) => boolean) => {
      const covers = pathCoverer(pattern);
      return path.isAbsolute(expandHome(pattern)) ? (rel) => covers(rel) || covers(path.join(root, rel)) : covers;
    };
    const tiers = (['deny', 'ask', 'allow'] as const).map((action) => ({
      action,
      tests: reads.filter((r) => r.action === action).map((r) => (action === 'allow' ? pathMatcher(r.pattern) : reaches(r.pattern))),
    }));
    return {
      actionFor: (rel) => tiers.find((t) => t.tests.some((test) => test(rel)))?.action ?? DEFAULTS.read,
      limited: reads.some((r) => r.action !== 'allow'),
    };
  }

  private protectedWrite(rel: string, hit: { action: PermissionAction; rule: SourcedRule } | null): Decision {
    if (hit?.action === 'deny') return this.byRuleOrDefault('edit', rel, hit, []);
    const inside = rel.split('/').find((p) => /^\.(git|loupe)$/i.test(p)) ?? rel.split('/')[0];
    return { action: 'ask', kind: 'edit', subject: rel, rule: null, reason: `${rel} is inside ${inside}, where a change can alter permissions, history or hooks, so it needs approval every time`, always: [] };
  }

  private async outside(abs: string, rules: SourcedRule[]): Promise<Decision> {
    const hit = this.match('external_directory', rules, (p) => matchPath(p, abs));
    const d = this.byRuleOrDefault('external_directory', abs, hit, [{ kind: 'external_directory', pattern: await alwaysFolderPattern(abs), action: 'allow' }]);
    if (!hit) d.reason = `${abs} is outside the workspace; no external_directory rule matches, so it needs approval`;
    return d;
  }

  private url(raw: string, privateAddress: string | null, rules: SourcedRule[]): Decision {
    let url: URL | null = null;
    try {
      url = new URL(raw);
    } catch {}
    const subject = url?.href ?? raw;
    const always: PermissionRule[] = url ? [{ kind: 'webfetch', pattern: alwaysUrlPattern(url), action: 'allow' }] : [];
    const hit = this.match('webfetch', rules, (p) => matchUrl(p, subject));
    const d = this.byRuleOrDefault('webfetch', subject, hit, always);
    if (privateAddress && d.action === 'allow' && url && !namesHost(d.rule!.pattern, url)) {
      // A wildcard such as `https://*` was written for the internet, not for 169.254.169.254.
      return { ...d, action: 'ask', reason: `${subject} resolves to ${privateAddress}; the rule ${describeRule(d.rule!)} does not name this host, so it needs approval`, always };
    }
    if (privateAddress && d.action === 'ask' && !hit) {
      d.reason = `${subject} resolves to ${privateAddress}; no rule matches, so it needs approval`;
      d.byDefault = false;
    }
    return d;
  }

  private async command(kind: 'bash' | 'test', command: string, cwd: string, rules: SourcedRule[]): Promise<Decision> {
    const analysis = await analyseCommand(command);
    const parts: Decision[] = [];
    for (const c of analysis.commands) {
      if (c.control) continue;
      const bare = baseNameVariant(c.text);
      const allowM: Matcher = (p) => matchCommand(p, c.text);
      // deny and ask also see `/bin/rm` as `rm`; allow does not (`./git` is not git).
      const strictM: Matcher = (p) => matchCommand(p, c.text) || matchCommand(p, bare);
      const hit = this.match(kind, rules, allowM, strictM);
      const label = c.via ? `${c.text} (via ${c.via})` : c.text;
      if (c.dynamic && hit?.action !== 'deny') {
        parts.push({ action: 'ask', kind, subject: c.text, rule: hit?.action === 'ask' ? hit.rule : null, reason: `${label}: ${c.dynamic}, so no rule can allow it`, always: [] });
      } else {
        const d = this.byRuleOrDefault(kind, label, hit, alwaysCommandRules(kind, c.text));
        parts.push({ ...d, subject: c.text });
      }
    }
    for (const problem of analysis.problems) {
      parts.push({ action: 'ask', kind, subject: command, rule: null, reason: `the command cannot be checked: ${problem}`, always: [] });
    }
    parts.push(
      ...(await judgePaths(analysis, cwd, {
        root: this.opts.root,
        outside: (abs) => this.outside(abs, rules),
        write: (rel, beneath, ref) => this.commandWrite(rel, beneath, ref, rules),
        read: (rel, beneath, ref) => this.commandRead(rel, beneath, ref, rules),
        maybeWrite: (rel) => (isProtectedPath(rel) || NESTED_PROTECTED.test(rel) ? this.protectedWrite(rel, this.match('edit', rules, (p) => matchPath(p, rel))) : null),
      })),
    );
    const decision = combine(kind, command, parts);
    const destructive = destructiveReasons(analysis, command);
    const risk = [...new Set([...destructive, ...parts.flatMap((p) => p.risk ?? [])])];
    return risk.length ? { ...decision, risk, ...(destructive.length ? { destructive: true } : {}) } : decision;
  }

  /**
   * A command writing inside the workspace: .git and .loupe always ask (as edits do), so does
   * anything written beneath the root under names the command picks; edit rules still apply.
   */
  private commandWrite(rel: string, beneath: boolean, ref: PathRef, rules: SourcedRule[]): Decision | null {
    const hit = this.match('edit', rules, (p) => matchPath(p, rel));
    // Any .git or .loupe, not only the root's: a path through a link made earlier in the same
    // line (`ln -s . up && echo > up/.git/config`) only shows its real place at run time.
    if (isProtectedPath(rel) || NESTED_PROTECTED.test(rel)) return this.protectedWrite(rel, hit);
    if (beneath && rel === '') {
      return { action: 'ask', kind: 'edit', subject: ref.raw, rule: null, reason: `${ref.raw} (written by ${ref.by}) is the workspace root, and what lands there is named by the command, not the command line (it could be .git or .loupe), so it needs approval`, always: [] };
    }
    if (hit && hit.action !== 'allow') return this.byRuleOrDefault('edit', rel, hit, []);
    if (beneath) return this.beneathRule('edit', rel, ref, rules);
    return null;
  }

  /** A command returning a file's content: read rules apply as they do to read_file. */
  private commandRead(rel: string, beneath: boolean, ref: PathRef, rules: SourcedRule[]): Decision | null {
    const hit = this.match('read', rules, (p) => matchPath(p, rel));
    if (hit && hit.action !== 'allow') return this.byRuleOrDefault('read', rel || '.', hit, []);
    if (beneath) return this.beneathRule('read', rel, ref, rules);
    return null;
  }

  /** A deny or ask rule for something under a folder the command walks through: it cannot skip it, so ask. */
  private beneathRule(kind: 'read' | 'edit', rel: string, ref: PathRef, rules: SourcedRule[]): Decision | null {
    const rule = rules.find((r) => r.kind === kind && r.action !== 'allow' && mayMatchUnder(r.pattern, rel));
    if (!rule) return null;
    const verb = kind === 'read' ? 'reads' : 'writes';
    return { action: 'ask', kind, subject: rel || '.', rule, reason: `${ref.by} ${verb} everything under ${rel || 'the workspace'}, where the rule ${describeRule(rule)} applies, so it needs approval`, always: [] };
  }
}

/** `/usr/bin/rm -rf x` → `rm -rf x`, so deny rules written for `rm` still apply. */
function baseNameVariant(text: string): string {
  const sp = text.indexOf(' ');
  const name = sp === -1 ? text : text.slice(0, sp);
  return name.includes('/') ? toPosix(path.basename(name)) + (sp === -1 ? '' : text.slice(sp)) : text;
}

/** Does the rule spell out this URL's scheme and host (as `http://127.0.0.1*` does)? */
function namesHost(pattern: string, url: URL): boolean {
  return pattern.startsWith(`${url.protocol}//${url.hostname}`) && !/[*]/.test(`${url.protocol}//${url.hostname}`);
}

/** A compound command is allowed only if every part is; one deny denies all. */
function combine(kind: PermissionKind, command: string, parts: Decision[]): Decision {
  const always = dedupe(parts.flatMap((p) => p.always));
  const denied = parts.find((p) => p.action === 'deny');
  if (denied) return { action: 'deny', kind, subject: command, rule: denied.rule, reason: denied.reason, always: [], parts };
  const asks = parts.filter((p) => p.action === 'ask');
  if (asks.length) {
    const reason = asks.length === 1 ? asks[0].reason : `${asks.length} parts need approval: ${asks.map((a) => a.reason).join('; ')}`;
    return { action: 'ask', kind, subject: command, rule: asks[0].rule, reason, always, parts };
  }
  if (!parts.length) return { action: 'allow', kind, subject: command, rule: null, reason: `${command}: runs no command and names no path outside the workspace`, always: [], parts };
  const reason = parts.length === 1 ? parts[0].reason : `every part is allowed: ${parts.map((p) => p.reason).join('; ')}`;
  return { action: 'allow', kind, subject: command, rule: parts[0].rule, reason, always: [], parts };
}

function dedupe(rules: PermissionRule[]): PermissionRule[] {
  const seen = new Set<string>();
  return rules.filter((r) => {
    const k = `${r.kind}\0${r.pattern}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
