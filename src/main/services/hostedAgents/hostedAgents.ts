// A workspace's hosted agents (docs/architecture.md, "Hosted agents"), built once per workspace by
// the composition root and disposed with it: which other agents a session may run (the person's
// own `agents`, a trusted repository's, the ready entries the person can enable), whether each can
// start here (its program found, a repository's approved on a card of kind `agent`), and the
// programs themselves, each started inside the OS sandbox with its own state folder and ended with
// the workspace. Knows nothing of sessions, tools or the chat: the runner drives a process.
import { accessSync, constants, existsSync, mkdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AgentView } from '../../../shared/contract';
import { LOUPE_AGENT, READY_AGENTS, agentCommandLine, agentDigest, describeAgent, readyAgent, type AgentDecl, type AgentEntry } from '../config/agentsConfig';
import { expandEnv } from '../config/mcpServers';
import type { Logger } from '../log/logger';
import type { ApprovalAnswer, ApprovalRequest } from '../permissions/approvalQueue';
import type { ProjectRules } from '../permissions/projectConfig';
import type { SandboxPolicy } from '../sandbox/bwrapPolicy';
import { prepareLaunch, type Launch } from '../sandbox/launch';
import type { AgentProcess, AgentClientHandlers } from './agentProcess';
import { AgentUnavailableError } from './errors';

/** Where the person's decisions about agents are kept: the user's settings, never the workspace. */
export interface AgentStore {
  agents(): AgentDecl[];
  agentApproval(root: string, name: string): string | null;
  approveAgent(root: string, name: string, digest: string): Promise<void>;
  setAgent(name: string, entry: AgentEntry | null): Promise<void>;
}

export interface HostedAgentsOptions {
  root: string;
  user: AgentStore;
  project: { load(): Promise<ProjectRules> };
  /** Asks the person (the workspace's approval queue): running a repository's agent. */
  ask(request: Omit<ApprovalRequest, 'id' | 'createdAt'>, signal: AbortSignal): Promise<ApprovalAnswer>;
  /** The sandbox an agent runs in (its state folder writable, its network to its hosts), or undefined to run it outside (sandbox off or unavailable). */
  sandbox(decl: AgentDecl, stateDir: string): Promise<SandboxPolicy | undefined>;
  /** Where each agent keeps its own state: `<stateRoot>/<name>` (under Loupe's config folder). */
  stateRoot: string;
  env?: NodeJS.ProcessEnv;
  logger: Logger;
}

/** Inherited from Loupe's environment: what a program needs to run and print text, never Loupe's keys. */
const INHERITED = ['PATH', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TERM', 'USER', 'LOGNAME', 'SHELL'];

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

export class HostedAgents {
  private readonly live = new Set<AgentProcess>();
  /** name → the configuration digest the person declined to run while this process runs. */
  private readonly declined = new Map<string, string>();
  /** `loupe run --trust`: the agents a trusted config names count as approved while this process runs. */
  private configuredApproved = false;
  private readonly stop = new AbortController();
  private disposed = false;

  constructor(private readonly opts: HostedAgentsOptions) {}

  private get env(): NodeJS.ProcessEnv {
    return this.opts.env ?? process.env;
  }

  approveConfigured(): void {
    this.configuredApproved = true;
  }

  /** Every agent a session could be given, the person's first (a repository cannot replace one of theirs). */
  async declared(): Promise<{ decls: AgentDecl[]; untrusted: AgentDecl[] }> {
    const project = await this.opts.project.load();
    const user = this.opts.user.agents();
    const own = (project.agents ?? []).filter((d) => !user.some((u) => u.name === d.name));
    const untrusted = (project.ignored?.agents ?? []).filter((d) => !user.some((u) => u.name === d.name));
    return { decls: [...user, ...own], untrusted };
  }

  /** The program an entry runs, found now: an absolute path that is executable, or the first on PATH (never a relative PATH entry). */
  program(entry: AgentEntry): string | null {
    if (path.isAbsolute(entry.command)) return executable(entry.command) ? entry.command : null;
    if (entry.command.includes('/')) return null;
    for (const dir of (this.env.PATH ?? '').split(path.delimiter)) {
      if (!dir || !path.isAbsolute(dir) || dir === this.opts.root || dir.startsWith(this.opts.root + path.sep)) continue;
      const candidate = path.join(dir, entry.command);
      if (executable(candidate)) return candidate;
    }
    return null;
  }

  /** What the session bar and the settings show: configured agents with their status, then the ready entries not configured. */
  async list(): Promise<AgentView[]> {
    const { decls, untrusted } = await this.declared();
    const views: AgentView[] = decls.map((d) => this.view(d));
    for (const d of untrusted) views.push({ ...this.view(d), status: 'pending', detail: `waiting for you to trust this folder with ${d.file}` });
    for (const r of READY_AGENTS) {
      if (views.some((v) => v.name === r.name)) continue;
      const found = this.program(r.entry);
      views.push({ name: r.name, label: r.label, source: 'ready', command: agentCommandLine(r.entry), status: 'disabled', detail: found ? `found at ${found}; enable it to offer it here` : `not found on PATH; install it (${r.install}) or name the folder that holds it`, program: found, sandboxed: null });
    }
    return views;
  }

  private view(d: AgentDecl): AgentView {
    const found = this.program(d.entry);
    const label = d.entry.label ?? readyAgent(d.name)?.label ?? d.name;
    const base = { name: d.name, label, source: d.source, command: agentCommandLine(d.entry), program: found, sandboxed: null };
    if (d.entry.disabled) return { ...base, status: 'disabled', detail: `disabled ("disabled": true in ${d.file})` };
    if (!found) return { ...base, status: 'missing', detail: `${d.entry.command} was not found${path.isAbsolute(d.entry.command) ? '' : ' on PATH'}` };
    if (d.source === 'project' && !this.approved(d)) {
      if (this.declined.get(d.name) === agentDigest(d)) return { ...base, status: 'pending', detail: 'you declined to run it' };
      return { ...base, status: 'pending', detail: 'asks for your approval when a session first uses it' };
    }
    return { ...base, status: 'ready', detail: null };
  }

  private approved(d: AgentDecl): boolean {
    return this.configuredApproved || this.opts.user.agentApproval(this.opts.root, d.name) === agentDigest(d);
  }

  /**
   * The agent a session may run now, or why not (AGENT_UNAVAILABLE). A repository's agent is asked
   * about first, on a card of kind `agent` showing its exact command line ("always" is kept per
   * folder under the digest of its configuration; a refusal holds while Loupe runs).
   */
  async check(name: string, signal?: AbortSignal): Promise<AgentDecl> {
    if (name === LOUPE_AGENT) throw new AgentUnavailableError(name, 'it is Loupe itself');
    const { decls, untrusted } = await this.declared();
    const d = decls.find((x) => x.name === name);
    if (!d) {
      if (untrusted.some((x) => x.name === name)) throw new AgentUnavailableError(name, `it is named by this folder's ${untrusted.find((x) => x.name === name)!.file}, which you have not trusted. Trust the folder first.`);
      const ready = readyAgent(name);
      throw new AgentUnavailableError(name, ready ? `it is not enabled. Enable ${ready.label} in the settings (Other agents).` : `no agent of that name is configured in "agents" of your settings or this folder's .loupe/config.json.`);
    }
    if (d.entry.disabled) throw new AgentUnavailableError(name, `it is disabled in ${d.file}.`);
    if (!this.program(d.entry)) throw new AgentUnavailableError(name, `its program ${d.entry.command} was not found${path.isAbsolute(d.entry.command) ? '' : ' on PATH'}. Install it, or set its "command" to the program's absolute path.`);
    if (d.source === 'project' && !this.approved(d)) {
      const digest = agentDigest(d);
      if (this.declined.get(name) === digest) throw new AgentUnavailableError(name, 'you declined to run it (restart Loupe to be asked again).');
      const ac = new AbortController();
      const stopAll = () => ac.abort();
      this.stop.signal.addEventListener('abort', stopAll, { once: true });
      signal?.addEventListener('abort', stopAll, { once: true });
      const answer = await this.opts
        .ask(
          {
            kind: 'agent',
            tool: `acp:${name}`,
            summary: `run the agent "${name}": ${agentCommandLine(d.entry)}`,
            reason: `${d.file} names it; it is a program from this repository, so it runs only with your approval of this exact configuration (asked again if it changes), inside the sandbox`,
            rule: null,
            always: [],
            details: describeAgent(d),
          },
          ac.signal,
        )
        .finally(() => {
          this.stop.signal.removeEventListener('abort', stopAll);
          signal?.removeEventListener('abort', stopAll);
        });
      if (answer.answer === 'deny') {
        if (!answer.unattended) this.declined.set(name, digest);
        throw new AgentUnavailableError(name, answer.unattended ? 'nobody could approve running it here (run with --trust to approve the agents a trusted config names)' : 'you declined to run it.');
      }
      if (answer.answer === 'always') await this.opts.user.approveAgent(this.opts.root, name, digest).catch((err: unknown) => this.opts.logger.warn('agents.approval_not_saved', { agent: name, error: err }));
    }
    return d;
  }

  /** The folder an agent keeps its own state in (its HOME inside the sandbox): made when missing. */
  stateDir(name: string): string {
    const dir = path.join(this.opts.stateRoot, name);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return dir;
  }

  /**
   * Starts the agent's program in `cwd` (the workspace, or a worktree session's checkout) and
   * answers once it has said what it is. Its environment is the few variables a program needs,
   * its entry's `env` (`${env:VAR}` expanded from Loupe's), and its own state folder as HOME and
   * the XDG folders, so nothing it keeps lands in the person's home or the workspace.
   */
  async start(decl: AgentDecl, cwd: string, handlers: AgentClientHandlers, signal?: AbortSignal): Promise<AgentProcess> {
    if (this.disposed) throw new AgentUnavailableError(decl.name, 'the folder was closed.');
    const program = this.program(decl.entry);
    if (!program) throw new AgentUnavailableError(decl.name, `its program ${decl.entry.command} was not found.`);
    const home = this.stateDir(decl.name);
    const inherited = Object.fromEntries(INHERITED.flatMap((k) => (this.env[k] !== undefined && !this.env[k]!.startsWith('()') ? [[k, this.env[k]!]] : [])));
    let own: Record<string, string>;
    try {
      own = expandEnv(decl.entry.env, this.env, `agents.${decl.name}.env`);
    } catch (err) {
      throw new AgentUnavailableError(decl.name, (err as Error).message);
    }
    const homes = { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_DATA_HOME: path.join(home, '.local', 'share'), XDG_STATE_HOME: path.join(home, '.local', 'state'), XDG_CACHE_HOME: path.join(home, '.cache') };
    for (const d of Object.values(homes)) mkdirSync(d, { recursive: true });
    const env: NodeJS.ProcessEnv = { ...inherited, ...homes, ...own };
    const sandbox = await this.opts.sandbox(decl, home);
    let launch: Launch | null = null;
    let argv: string[];
    let file: string;
    if (sandbox) {
      // The launch takes a command line for a shell: `exec` with every word quoted, so the shell runs exactly this program.
      launch = await prepareLaunch({ shell: '/bin/sh', command: `exec ${[program, ...(decl.entry.args ?? [])].map(quote).join(' ')}`, cwd, sandbox });
      file = launch.program;
      argv = launch.argv;
      // Its temp folder is the launch's; its caches stay in its own folder, which outlives a run.
      const { XDG_CACHE_HOME: _cache, ...temp } = launch.env;
      Object.assign(env, temp);
    } else {
      file = program;
      argv = decl.entry.args ?? [];
    }
    // The ACP SDK (and its schemas) load with the first agent started, not with the folder.
    const { AgentProcess } = await import('./agentProcess');
    const p = await AgentProcess.start({ name: decl.name, program: file, argv, env, cwd, launch }, handlers, signal);
    this.live.add(p);
    void p.exited.then(() => this.live.delete(p));
    if (this.disposed) {
      await p.stop(0);
      throw new AgentUnavailableError(decl.name, 'the folder was closed.');
    }
    return p;
  }

  /** Whether the agent runs inside the OS sandbox here (null: no such agent). */
  async sandboxed(name: string): Promise<boolean | null> {
    const d = (await this.declared()).decls.find((x) => x.name === name);
    return d ? (await this.opts.sandbox(d, path.join(this.opts.stateRoot, name))) !== undefined : null;
  }

  /**
   * Enables a ready entry (writes it into the person's settings, its command the program found in
   * `folder` when one is named) or disables one of the person's agents.
   */
  async enable(name: string, enabled: boolean, folder?: string): Promise<void> {
    const own = this.opts.user.agents().find((d) => d.name === name);
    if (!enabled) {
      if (own) await this.opts.user.setAgent(name, { ...own.entry, disabled: true });
      return;
    }
    if (own) {
      const { disabled: _d, ...entry } = own.entry;
      await this.opts.user.setAgent(name, folder ? { ...entry, command: inFolder(folder, entry.command) } : entry);
      return;
    }
    const ready = readyAgent(name);
    if (!ready) throw new AgentUnavailableError(name, 'there is no ready entry of that name; add it to "agents" in your settings.');
    const entry = folder ? { ...ready.entry, command: inFolder(folder, ready.entry.command) } : ready.entry;
    if (!this.program(entry)) throw new AgentUnavailableError(name, `${entry.command} was not found${folder ? '' : ' on PATH'}; install it (${ready.install}) or name the folder that holds it.`);
    await this.opts.user.setAgent(name, entry);
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.stop.abort();
    await Promise.all([...this.live].map((p) => p.stop(200).catch(() => undefined)));
  }
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** `command` found in `folder` (`~` for home): an absolute path the person named. */
function inFolder(folder: string, command: string): string {
  const dir = folder === '~' ? os.homedir() : folder.startsWith('~/') ? path.join(os.homedir(), folder.slice(2)) : folder;
  if (!path.isAbsolute(dir)) throw new AgentUnavailableError(path.basename(command), `the folder must be an absolute path (got ${folder}).`);
  const file = path.join(dir, path.basename(command));
  if (!existsSync(file)) throw new AgentUnavailableError(path.basename(command), `${file} does not exist.`);
  return file;
}
