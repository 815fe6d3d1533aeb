// Engine + queue: what a tool calls before it acts. Resolves when allowed, throws
// PERMISSION_DENIED with a message the model can act on otherwise.
import { describeProblem, ConfigMalformedError, PermissionDeniedError } from './errors';
import type { ApprovalQueue, ProposedEdit } from './approvalQueue';
import { CONFIG_REL } from './projectConfig';
import { containedBySandbox, describeGrant, outsideByRule } from './sandboxPlan';
import type { SandboxGrant } from '../sandbox/types';
import type { NetworkGuard, HostDecision as ProxyDecision, HostQuery } from '../sandbox/net/types';
import type { NetworkLogEntry } from '../../../shared/contract';
import type { PermissionEngine, PermissionQuery } from './ruleEngine';
import { decideServerHost, serverHostPorts } from './hostRules';
import { hostPort } from './hostEntry';
import { describeRule, type Decision, type HookVerdict, type PermissionAction, type PermissionKind, type PermissionMode, type PermissionRule } from './types';
import { modeRefusal, planCommandRefusal, planRefusalForPerson, type ActionFacts } from './planMode';
import type { ReadOnlyVerdict } from './readOnly';
import type { RequestGrants } from './grants';

export interface AuthorizeInput {
  query: PermissionQuery;
  tool: string;
  summary: string;
  /** For edits: the unified diff, computed only when a person is asked. */
  diff?: string | (() => string);
  edit?: ProposedEdit;
  /** What the card shows besides the summary: an MCP call's arguments as formatted JSON. */
  details?: string;
  signal?: AbortSignal;
  /**
   * The person already approved this exact thing within the same call (a redirect back to an
   * origin they allowed a moment ago): an ask passes without a second card. Deny still denies.
   */
  alreadyApproved?: boolean;
  /** A command the model asked to run outside the OS sandbox: only a rule or a card that says so lets it. */
  outsideSandbox?: boolean;
  /**
   * A file of the repository asked for this command (a command's `!` line), not the person nor the
   * model: the OS sandbox containing it does not spare the question, only a rule does.
   */
  fromRepository?: string;
  /** A background process (bash run_in_background): its card says it keeps running. */
  background?: boolean;
}

export interface Authorized {
  decision: Decision;
  /** How it was allowed: by a rule or default, or by the person just now. */
  /** `sandbox`: it would have asked, but the OS sandbox contains what the question was about. `hook`: the person's own hook allowed what the defaults would ask. */
  by: 'rule' | 'once' | 'always' | 'sandbox' | 'hook';
  /** Commands only: run inside the OS sandbox with this grant, or outside it when null. */
  sandbox: SandboxGrant | null;
}

export interface GateOptions {
  /** Writes "allow always" rules where the user can see them (.loupe/config.json). */
  persist: (rules: PermissionRule[]) => Promise<void>;
  /** Told when an "always" answer could only be kept for this session. */
  onWarning?: (message: string) => void;
  /** Told each host a sandboxed command's proxy asked about, and the answer (the settings list them). */
  onHostDecision?: (entry: NetworkLogEntry) => void;
  /** Where the person's "always" for a repository's skill or command grant is kept (the user's settings, per folder). */
  grantApprovals?: { approved(key: string): string | null; approve(key: string, digest: string): Promise<void> };
}

/** A skill's or command's `allowed-tools`, asked to apply while it is in use (docs/security.md). */
export interface GrantRequest {
  /** Whose: `skill "deploy" (.claude/skills/deploy)`. */
  label: string;
  scope: 'personal' | 'repository';
  /** `skill:<name>` or `command:<name>`: what an "always" answer is kept under. */
  key: string;
  /** Names the exact list (and where it is written): a changed list asks again. */
  digest: string;
  /** The entries as written. */
  entries: string[];
  /** The allow rules they become. */
  rules: PermissionRule[];
  /** Entries that become no rule (tools Loupe does not have), said on the card. */
  ignored: string[];
  signal?: AbortSignal;
}

/** Whether a grant applies now, and why (for the tool's result and the chat). */
export interface GrantOutcome {
  applied: boolean;
  why: string;
}

function stripSource(r: PermissionRule): PermissionRule {
  return { kind: r.kind, pattern: r.pattern, action: r.action };
}

export function ruleToAdd(rules: PermissionRule[]): string {
  if (!rules.length) return 'No rule can allow it (it is only known at run time); run it where someone can approve it.';
  return `To allow it, add ${rules.map((r) => JSON.stringify(r)).join(' and ')} to "permissions" in ${CONFIG_REL}.`;
}

/** The tool call a question comes from: the approval names it so the chat finds its card. */
export interface CallRef {
  call_id: string;
  correlation_id: string;
  /** The chat session whose request made the call: one queue holds every session's questions. */
  session_id?: string;
}

/** A decision after the call's hook: `forced`, a hook's question; `lifted`, a default's ask the person's hook allowed. */
type HookedDecision = Decision & { forced?: boolean; lifted?: boolean };

/**
 * What a subagent may do within its parent's gate (docs/architecture.md, "Subagents"): the tools
 * and permission kinds its definition and its parent leave it, and whether it only reads. A gate
 * narrowed twice holds the intersection: a child never holds more than its parent.
 */
export interface GateScope {
  /** Who is narrowed, as refusals name it: `the explore agent "Find the parser"`. */
  who: string;
  tools: ReadonlySet<string>;
  kinds: ReadonlySet<PermissionKind>;
  /** Plan mode's layer, whatever mode a request of it asks for. */
  readOnly: boolean;
}

export class PermissionGate {
  /** A hook's `ask` is one card: once answered, the call's later questions go by the rules. */
  private hookAsked = false;

  constructor(
    private readonly engine: PermissionEngine,
    private readonly queue: ApprovalQueue,
    private readonly opts: GateOptions,
    private readonly call?: CallRef,
    /** `plan`: only what reads is allowed (docs/architecture.md, "Plan mode"). */
    readonly mode: PermissionMode = 'act',
    /** What the call's PreToolUse hooks said (docs/architecture.md, "Hooks"). */
    private readonly hook?: HookVerdict,
    /** The allow rules of the skills and commands in use in this request (absent: none can be given). */
    readonly grants?: RequestGrants,
    /** A repository's command file whose shell lines this gate judges (see AuthorizeInput.fromRepository). */
    private readonly repositoryFile?: string,
    /** A subagent's narrowing; absent: the workspace's rules, whole. */
    readonly scope?: GateScope,
    /** Time the call's questions waited for the person, shared by the gates made for one call. */
    private readonly waited: { ms: number } = { ms: 0 },
  ) {}

  /** How long this call has waited for the person's answers so far (its duration leaves it out). */
  get waitedMs(): number {
    return this.waited.ms;
  }

  private with(c: { call?: CallRef; mode?: PermissionMode; hook?: HookVerdict | null; grants?: RequestGrants; repositoryFile?: string; scope?: GateScope; waited?: { ms: number } }): PermissionGate {
    const hook = c.hook === null ? undefined : (c.hook ?? this.hook);
    return new PermissionGate(this.engine, this.queue, this.opts, c.call ?? this.call, c.mode ?? this.mode, hook, c.grants ?? this.grants, c.repositoryFile ?? this.repositoryFile, c.scope ?? this.scope, c.waited ?? this.waited);
  }

  /** The same gate, its questions naming one tool call, with what that call's PreToolUse hooks said. */
  forCall(call: CallRef, hook?: HookVerdict): PermissionGate {
    return this.with({ call, hook: hook ?? null, waited: { ms: 0 } });
  }

  /** The same gate in another mode: a request in plan mode gets one whose writes are refused; a read-only scope stays in plan mode. */
  inMode(mode: PermissionMode): PermissionGate {
    const m = this.scope?.readOnly ? 'plan' : mode;
    return m === this.mode ? this : this.with({ mode: m });
  }

  /** The same gate narrowed to a child's scope, within whatever this one already allows (and in plan mode when either only reads). */
  narrowed(scope: GateScope): PermissionGate {
    const mine = this.scope;
    const joined: GateScope = mine
      ? { who: scope.who, tools: new Set([...scope.tools].filter((t) => mine.tools.has(t))), kinds: new Set([...scope.kinds].filter((k) => mine.kinds.has(k))), readOnly: scope.readOnly || mine.readOnly }
      : { ...scope, readOnly: scope.readOnly || this.mode === 'plan' };
    return this.with({ mode: joined.readOnly ? 'plan' : this.mode, scope: joined });
  }

  /** The same gate for one request, with the grants of the skills and commands in use in it. */
  withGrants(grants: RequestGrants): PermissionGate {
    return this.with({ grants });
  }

  /** The same gate for the shell lines a repository's command file runs: the sandbox does not spare their questions. */
  forRepositoryFile(file: string): PermissionGate {
    return this.with({ repositoryFile: file });
  }

  private extra() {
    return this.grants?.rules() ?? [];
  }

  /**
   * A skill's or command's `allowed-tools` for the rest of this request. The person's own apply as
   * written. A repository's apply only in a folder the person trusted and once the person approved
   * that exact list on a card (kind `skill`; "always" is kept per folder and list); otherwise the
   * skill or command still works, and every tool asks as the rules say.
   */
  async grant(req: GrantRequest): Promise<GrantOutcome> {
    if (!this.grants) return { applied: false, why: 'its allowed-tools apply only within a chat request' };
    if (!req.rules.length) return { applied: false, why: req.entries.length ? `none of its allowed-tools (${req.entries.join(', ')}) is a tool Loupe has` : 'it lists no tools' };
    const list = req.rules.map((r) => `${r.kind} "${r.pattern}"`).join(', ');
    if (req.scope === 'personal') {
      this.grants.add(req.label, req.rules);
      return { applied: true, why: `its allowed-tools apply while it is in use: allow ${list}` };
    }
    if ((await this.engine.project()).trustedByPerson !== true) {
      return { applied: false, why: "its allowed-tools are ignored: it is the repository's and this folder is not trusted (a folder is trusted with its .loupe/config.json), so every tool asks as the rules say" };
    }
    if (this.opts.grantApprovals?.approved(req.key) !== req.digest) {
      const answer = await this.queue.request(
        {
          kind: 'skill',
          tool: req.label,
          summary: `${req.label} asks to run these without asking while it is in use: ${req.entries.join(', ')}`,
          reason: `it is the repository's, so its allowed-tools apply only with your approval of this exact list (asked again if it changes); the sandbox and your deny and ask rules still hold`,
          rule: null,
          always: [],
          details: [`as rules: allow ${list}`, ...(req.ignored.length ? [`not tools Loupe has (ignored): ${req.ignored.join(', ')}`] : [])].join('\n'),
          ...(this.call ? { call_id: this.call.call_id, correlation_id: this.call.correlation_id, ...(this.call.session_id ? { session_id: this.call.session_id } : {}) } : {}),
        },
        req.signal,
      );
      if (answer.answer === 'deny') return { applied: false, why: answer.unattended ? 'its allowed-tools are ignored: nobody could approve them here' : 'its allowed-tools are ignored: the person did not approve them' };
      if (answer.answer === 'always') await this.opts.grantApprovals?.approve(req.key, req.digest).catch((err: unknown) => this.opts.onWarning?.(`The approval of ${req.label}'s allowed-tools is kept for this request only: ${(err as Error).message}`));
    }
    this.grants.add(req.label, req.rules);
    return { applied: true, why: `its allowed-tools apply while it is in use (approved): allow ${list}` };
  }

  /** The call's hook asked and no card has shown it yet (a tool that never asks the rules calls `confirm`). */
  get hookAskPending(): boolean {
    return this.hook?.decision === 'ask' && !this.hookAsked;
  }

  /**
   * The card a hook's `ask` needs for a tool that consults no rule: the person answers it, or the
   * call is refused as any denied question is.
   */
  async confirm(input: { tool: string; summary: string; kind: Decision['kind']; signal?: AbortSignal }): Promise<void> {
    if (!this.hookAskPending) return;
    const decision: Decision = { action: 'ask', kind: input.kind, subject: input.summary, rule: null, reason: '', always: [] };
    await this.ask({ query: { kind: 'read', path: '.' }, tool: input.tool, summary: input.summary, ...(input.signal ? { signal: input.signal } : {}) }, this.withHook(decision), null, undefined);
  }

  /**
   * The rules' decision with the call's hook applied: a hook's ask (once per call) turns anything
   * but a deny into a question naming the hook; the person's own hook's allow lifts an ask that
   * only the built-in defaults made. Deny and ask rules stand, and a repository's hook never
   * loosens anything.
   */
  private withHook(decision: Decision): HookedDecision {
    const h = this.hook;
    if (!h || decision.action === 'deny') return decision;
    if (h.decision === 'ask' && !this.hookAsked) {
      this.hookAsked = true;
      const why = `${h.hook} asks${h.reason ? `: ${h.reason}` : ''}`;
      return { ...decision, action: 'ask', reason: decision.reason ? `${why} (${decision.reason})` : why, always: decision.action === 'ask' ? decision.always : [], forced: true };
    }
    const asks = (decision.parts ?? [decision]).filter((p) => p.action === 'ask');
    if (h.decision === 'allow' && h.owner === 'user' && decision.action === 'ask' && asks.every((p) => p.byDefault)) {
      return { ...decision, action: 'allow', reason: `${decision.reason}; ${h.hook} allows it${h.reason ? `: ${h.reason}` : ''}`, always: [], parts: decision.parts?.map((p) => (p.action === 'ask' ? { ...p, action: 'allow' as const } : p)), lifted: true };
    }
    return decision;
  }

  /**
   * Before any tool runs: a tool outside a subagent's scope is refused here; in plan mode, an
   * action whose facts say it writes, or runs something other than a command this gate then
   * judges, is refused too, whatever it is and wherever it comes from. Resolves when it may go
   * on to its own questions.
   */
  authorizeAction(facts: ActionFacts): void {
    const scope = this.scope;
    if (scope && !scope.tools.has(facts.name)) {
      const offered = [...scope.tools].sort().join(', ') || 'none';
      throw new PermissionDeniedError(`Refused: ${facts.name} is not among the tools of ${scope.who} (${offered}). Do the task with those, or answer with what you need.`, { denied_by: 'agent' }, `Refused: ${facts.name} is not among the tools of ${scope.who}.`);
    }
    const refusal = modeRefusal(this.mode, facts);
    if (refusal) throw new PermissionDeniedError(refusal, { denied_by: 'mode' }, planRefusalForPerson(refusal));
  }

  /** The project config as it applies now (without its grants while the folder is untrusted). */
  project() {
    return this.engine.project();
  }

  async authorize(request: AuthorizeInput): Promise<Authorized> {
    const input = this.repositoryFile && !request.fromRepository ? { ...request, fromRepository: this.repositoryFile } : request;
    const scope = this.scope;
    if (scope && !scope.kinds.has(input.query.kind)) {
      throw new PermissionDeniedError(`Refused: ${input.summary} needs ${input.query.kind} permission, which ${scope.who} does not have. Do the task with its own tools, or answer with what you need.`, { denied_by: 'agent' });
    }
    const readOnly = this.mode === 'plan' ? await this.planCheck(input) : null;
    const ruled = await this.engine.decide(input.query, this.extra());
    if (ruled.action === 'deny') {
      const by = ruled.rule ? `the rule ${describeRule(ruled.rule)}` : 'the default';
      throw new PermissionDeniedError(
        `Denied by ${by}: ${ruled.reason}. Do not try to get around it; choose another approach or ask the user.`,
        {
          denied_by: ruled.rule ? 'rule' : 'default',
          ...(ruled.rule ? { rule: describeRule(ruled.rule) } : {}),
        },
        `Denied by ${by}: ${ruled.reason}.`,
      );
    }
    // A question about running outside the sandbox is the person's alone: no hook lifts it.
    const decision: HookedDecision = input.outsideSandbox && this.hook?.decision === 'allow' ? ruled : this.withHook(ruled);
    const q = input.query;
    const plan = q.kind === 'bash' || q.kind === 'test' ? await this.engine.sandboxPlan(q.command, this.extra()) : null;
    if (plan && readOnly) {
      // Plan mode: the command was found read-only, and the sandbox holds the workspace read-only
      // too; nothing (a rule, the model's sandbox: false) takes it out of the sandbox below.
      if (readOnly.sandboxOnly && !plan.active) {
        const refusal = planCommandRefusal(readOnly.command, `${readOnly.sandboxOnly}, and no OS sandbox holds the workspace read-only here`);
        throw new PermissionDeniedError(refusal, { denied_by: 'mode' }, planRefusalForPerson(refusal));
      }
      plan.grant = { ...plan.grant, readOnly: true };
    }
    // Off or unavailable: exactly the questions of a Loupe without a sandbox (the settings say why).
    if (!plan?.active) return this.ask(input, decision, null, undefined);
    if (readOnly) return this.inSandbox(input, decision, plan.grant);
    if (outsideByRule(decision) && !decision.forced) return { decision: { ...decision, reason: `${decision.reason}; the rule says "sandbox": false, so it runs outside the sandbox` }, by: 'rule', sandbox: null };
    if (input.outsideSandbox) {
      // The model's retry after SANDBOX_BLOCKED: only a person lifts the sandbox, and an "always"
      // answer writes a rule that says so.
      const always = decision.action === 'allow' && decision.rule ? [{ ...stripSource(decision.rule), sandbox: false }] : decision.always.map((r) => ({ ...r, sandbox: false }));
      const outside = { ...decision, action: 'ask' as const, always, reason: `runs OUTSIDE the sandbox (full access to files and network): ${decision.reason}` };
      return this.ask({ ...input, alreadyApproved: false }, outside, null, false);
    }
    return this.inSandbox(input, decision, plan.grant);
  }

  private inSandbox(input: AuthorizeInput, decision: HookedDecision, grant: SandboxGrant): Promise<Authorized> | Authorized {
    const sandboxed = { ...decision, reason: `${decision.reason}; ${describeGrant(grant)}` };
    if (decision.action === 'allow') return { decision: sandboxed, by: decision.lifted ? 'hook' : 'rule', sandbox: grant };
    // A destructive command is a question even inside the sandbox: what it destroys there (ignored
    // files, git's refs, a database) is not contained by it.
    if (containedBySandbox(decision) && !decision.forced && !input.fromRepository && !decision.destructive) return { decision: sandboxed, by: 'sandbox', sandbox: grant };
    if (input.fromRepository) sandboxed.reason = `${input.fromRepository} runs it before the model sees anything, so it asks even inside the sandbox; ${sandboxed.reason}`;
    return this.ask({ ...input, outsideSandbox: false }, sandboxed, grant, true);
  }

  /**
   * A question another agent asked before it acts (a hosted agent's `session/request_permission`,
   * docs/architecture.md "Hosted agents"). Loupe's rules answer what they speak to: a deny rule
   * (or plan mode, for what writes or runs) denies, an allow rule allows. The built-in defaults and
   * the sandbox never answer for it: that agent's own logic chose to ask, so the person is asked,
   * on a card whose "always" saves Loupe's rule.
   */
  async agentQuestion(agent: string, input: AuthorizeInput): Promise<Authorized> {
    const q = input.query;
    if (this.mode === 'plan' && q.kind === 'edit') throw new PermissionDeniedError(modeRefusal('plan', { name: input.tool, effect: 'write', asks: null })!, { denied_by: 'mode' });
    if (this.mode === 'plan' && (q.kind === 'bash' || q.kind === 'test')) {
      const verdict = await this.engine.readOnly(q.command);
      if (!verdict.readOnly) throw new PermissionDeniedError(planCommandRefusal(q.command, verdict.why), { denied_by: 'mode' });
    }
    const ruled = await this.engine.decide(q);
    if (ruled.action === 'deny') {
      const by = ruled.rule ? `the rule ${describeRule(ruled.rule)}` : 'the default';
      throw new PermissionDeniedError(`Denied by ${by}: ${ruled.reason}.`, { denied_by: ruled.rule ? 'rule' : 'default', ...(ruled.rule ? { rule: describeRule(ruled.rule) } : {}) });
    }
    if (ruled.action === 'allow' && ruled.rule && !ruled.byDefault) return { decision: ruled, by: 'rule', sandbox: null };
    const always = ruled.always.length ? ruled.always : (q.kind === 'edit' || q.kind === 'read') && !q.path.startsWith('/') ? [{ kind: q.kind, pattern: q.path, action: 'allow' as const }] : [];
    const reason = `${agent} asks before it acts, and no rule of yours answers it (${ruled.reason}); a deny rule would refuse it, an allow rule let it through`;
    return this.ask(input, { ...ruled, action: 'ask', always, reason }, null, undefined);
  }

  /** Plan mode refuses every edit, and every command the analysis does not find read-only; a command's verdict is returned. */
  private async planCheck(input: AuthorizeInput): Promise<(Extract<ReadOnlyVerdict, { readOnly: true }> & { command: string }) | null> {
    const q = input.query;
    if (q.kind === 'edit') {
      const refusal = modeRefusal('plan', { name: input.tool, effect: 'write', asks: 'edit' })!;
      throw new PermissionDeniedError(refusal, { denied_by: 'mode' }, planRefusalForPerson(refusal));
    }
    if (q.kind !== 'bash' && q.kind !== 'test') return null;
    const verdict = await this.engine.readOnly(q.command);
    if (!verdict.readOnly) {
      const refusal = planCommandRefusal(q.command, verdict.why);
      throw new PermissionDeniedError(refusal, { denied_by: 'mode' }, planRefusalForPerson(refusal));
    }
    return { ...verdict, command: q.command };
  }



  private async ask(input: AuthorizeInput, decision: HookedDecision, grant: SandboxGrant | null, sandboxed: boolean | undefined): Promise<Authorized> {
    if (decision.action === 'allow') return { decision, by: decision.lifted ? 'hook' : 'rule', sandbox: grant };
    if (input.alreadyApproved && !decision.forced) return { decision, by: 'once', sandbox: grant };

    // An untrusted folder's own config may hold the rule that would allow this: the card says so.
    const ifTrusted = await this.engine.decideIfTrusted(input.query, this.extra()).catch(() => null);
    const trustWould = ifTrusted?.action === 'allow' && ifTrusted.rule ? describeRule(ifTrusted.rule) : undefined;
    const reason = trustWould && !decision.forced ? `${decision.subject}: the folder's own config allows it, but that rule is off until the folder is trusted, so ${decision.kind} asks` : decision.reason;
    const asked = performance.now();
    const answer = await this.queue.request(
      {
        kind: decision.kind,
        tool: input.tool,
        summary: input.summary,
        reason,
        rule: decision.rule ? describeRule(decision.rule) : null,
        always: decision.always,
        ...(sandboxed !== undefined ? { sandboxed } : {}),
        ...(decision.risk?.length ? { risk: decision.risk } : {}),
        ...(input.background ? { background: true } : {}),
        ...(input.diff !== undefined ? { diff: typeof input.diff === 'function' ? input.diff() : input.diff } : {}),
        ...(input.edit ? { edit: input.edit } : {}),
        ...(input.details !== undefined ? { details: input.details } : {}),
        ...(this.call ? { call_id: this.call.call_id, correlation_id: this.call.correlation_id, ...(this.call.session_id ? { session_id: this.call.session_id } : {}) } : {}),
        ...(trustWould ? { trust_would_allow: trustWould } : {}),
      },
      input.signal,
      // Asked again when trust changes: a rule that now applies lets it through (never a hook's question).
      decision.forced ? undefined : async () => (await this.engine.decide(input.query, this.extra())).action === 'allow',
    ).finally(() => (this.waited.ms += performance.now() - asked));
    if (answer.answer === 'deny') {
      if (answer.unattended) {
        throw new PermissionDeniedError(`${input.summary} needs approval (${decision.reason}) and nobody can approve it here. ${ruleToAdd(decision.always)}`, { denied_by: 'unattended' });
      }
      throw new PermissionDeniedError(
        `The user denied ${input.summary}${answer.message ? `: "${answer.message}"` : '.'}`,
        { denied_by: 'user', ...(answer.message ? { message: answer.message } : {}) },
        answer.message ? `You denied it, and told the agent: "${answer.message}"` : 'You denied it.',
      );
    }
    if (answer.answer === 'always') await this.remember(decision.always);
    return { decision, by: answer.answer, sandbox: grant };
  }

  /**
   * Decides each host a sandboxed command's proxy is asked for: by the network rules, else by an
   * approval card (kind `network`) naming the host and the command. Lives as long as the command;
   * `signal` ends its open questions.
   */
  networkGuard(command: string, tool: string): NetworkGuard {
    const log = (target: HostQuery, d: ProxyDecision): ProxyDecision => {
      this.opts.onHostDecision?.({ at: new Date().toISOString(), command, host: hostPort(target.host, target.port), allowed: d.allowed, reason: d.reason });
      return d;
    };
    return {
      decide: async (target, signal) => log(target, await this.hostDecision(command, tool, target, signal)),
      hostPorts: () => this.engine.hostPorts(command),
    };
  }

  /**
   * What the result says when a sandboxed command found a port of this machine closed to it: why,
   * and the rule that would forward it (null when a deny rule refuses it). Asks nobody.
   */
  async explainHostPort(command: string, host: string, port: number): Promise<{ why: string; fix: string | null }> {
    const a = await this.engine.hostPortAdvice(command, host, port);
    if (a.deniedBy) return { why: a.reason, fix: null };
    if (a.offUntilTrusted) return { why: a.reason, fix: `The folder's own ${CONFIG_REL} names it, but its rules are off until the folder is trusted.` };
    return { why: a.reason, fix: ruleToAdd(a.rules) };
  }

  /**
   * The same for a sandboxed MCP server: the hosts its configuration lists, else a `network` card
   * naming the host and the server (no "always": the list lives in the server's configuration).
   */
  serverNetworkGuard(server: string, commandLine: string, hosts: readonly string[]): NetworkGuard {
    const label = `MCP server ${server}`;
    const log = (target: HostQuery, d: ProxyDecision): ProxyDecision => {
      this.opts.onHostDecision?.({ at: new Date().toISOString(), command: label, host: hostPort(target.host, target.port), allowed: d.allowed, reason: d.reason });
      return d;
    };
    return {
      decide: async (target, signal) => log(target, await this.hostDecision(label, `mcp:${server}`, target, signal, async () => decideServerHost(server, commandLine, hosts, await this.engine.rules(), target))),
      hostPorts: async () => serverHostPorts(commandLine, hosts, await this.engine.rules()),
    };
  }

  /**
   * The network of a hosted agent (docs/architecture.md, "Hosted agents"): the hosts its entry lists
   * pass (an address of this machine only when named exactly), network deny rules still deny, and
   * anything else is refused by the sandbox without a card: an agent reaches out on its own
   * (telemetry, update checks), and a question for each would bury the person's real ones.
   */
  agentNetworkGuard(name: string, commandLine: string, hosts: readonly string[]): NetworkGuard {
    const label = `agent ${name}`;
    const listed = `agents.${name}.network.hosts`;
    return {
      decide: async (target) => {
        const d = decideServerHost(name, commandLine, hosts, await this.engine.rules(), target, listed);
        const out: ProxyDecision =
          d.action === 'allow'
            ? { allowed: true, named: d.named, reason: d.reason }
            : { allowed: false, named: false, reason: d.action === 'deny' ? `denied by the rule ${describeRule(d.rule!)}` : `${d.reason}, so the sandbox refused it (add the host there to allow it)` };
        this.opts.onHostDecision?.({ at: new Date().toISOString(), command: label, host: hostPort(target.host, target.port), allowed: out.allowed, reason: out.reason });
        return out;
      },
      hostPorts: async () => serverHostPorts(commandLine, hosts, await this.engine.rules()),
    };
  }

  private async hostDecision(command: string, tool: string, target: HostQuery, signal: AbortSignal, decide = () => this.engine.decideHost(command, target)): Promise<ProxyDecision> {
    const d = await decide();
    if (d.action === 'deny') return { allowed: false, named: false, reason: `denied by the rule ${describeRule(d.rule!)}` };
    if (d.action === 'allow') return { allowed: true, named: d.named, reason: d.reason };
    const where = target.privateAddress && !target.privateAddress.startsWith(target.host) ? ` (${target.privateAddress})` : '';
    try {
      await this.ask({ query: { kind: 'bash', command }, tool, summary: `${hostPort(target.host, target.port)}${where} from ${command}`, signal }, d, null, true);
    } catch (err) {
      // The card already named the host and the command: the reason says only who said no.
      const details = err instanceof PermissionDeniedError ? (err.details as { denied_by?: string; message?: string }) : undefined;
      if (details?.denied_by === 'user') return { allowed: false, named: false, reason: `the person denied it${details.message ? `: "${details.message}"` : ''}` };
      if (details?.denied_by === 'unattended') return { allowed: false, named: false, reason: `nobody can approve it here. ${ruleToAdd(d.always)}` };
      return { allowed: false, named: false, reason: (err as Error).message };
    }
    return { allowed: true, named: !!target.privateAddress, reason: 'allowed by the person' };
  }

  /**
   * The read decision for many workspace paths at once (search results), rules loaded once.
   * `limited`: some read rule denies or asks, so results may leave files out.
   */
  readRules(): Promise<{ actionFor: (rel: string) => PermissionAction; limited: boolean }> {
    return this.engine.readDecider();
  }

  private async remember(rules: PermissionRule[]): Promise<void> {
    if (!rules.length) return;
    try {
      await this.opts.persist(rules);
      // An untrusted config keeps its allow rules (this one too) off until the folder is
      // trusted; the person's answer still holds for this session.
      if ((await this.engine.project()).trusted === false) for (const r of rules) this.engine.addSessionRule(r);
    } catch (err) {
      for (const r of rules) this.engine.addSessionRule(r);
      const why = err instanceof ConfigMalformedError ? describeProblem(err.problem) : (err as Error).message;
      this.opts.onWarning?.(`"Allow always" is kept for this session only: ${CONFIG_REL} could not be updated (${why}).`);
    }
  }
}
