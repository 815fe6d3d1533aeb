// `loupe run [--cwd DIR] [--worktree NAME] [--yes | --deny] [--json] [--session ID] [--trust]
// [--mode act|plan] [--queue] [--agent NAME] "prompt"`: the agent loop headless (`--agent`: a new
// session of another agent from `agents`, run in Loupe's sandbox). `--worktree NAME` works in
// Loupe's worktree NAME of the folder's repository (made from HEAD on branch loupe/NAME if it is
// not there yet): its own files, log, sessions and sandbox; the main folder is not touched. Stdout carries the answer (or NDJSON events with
// --json); questions, notes and errors go to stderr. `--mode plan` only reads: the answer is the
// plan, printed and kept beside the session, and nothing in the folder changes. `--queue` reads
// further messages from stdin (not a terminal), one a line, each sent when the last has ended.
// Asks: --yes allows them (deny rules still deny), --deny refuses them with the rule to add;
// with neither flag, an interactive terminal is asked, anything else refuses.
// Background processes the agent started are listed at the end and stopped, unless
// --keep-processes, which keeps the run (and their port forwards) alive until Ctrl-C.
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { InvalidArgumentError, LoupeError, toWireError } from '../errors';
import { userLog } from '../services/log/userLog';
import type { LlmConfig } from '../agent/llm/config';
import { describeUsage } from '../agent/loop/usage';
import type { AgentEvent, RunStatus } from '../agent/loop/events';
import { describeServerLine } from '../services/mcp/describe';
import type { ApprovalAnswer, ApprovalRequest } from '../services/permissions/approvalQueue';
import { describeProblem, type ConfigProblem } from '../services/config/validate';
import { defaultConfigDir } from '../services/settings/configDir';
import type { UserSettings } from '../services/settings/userSettings';
import { systemKeyStore, type KeyStore } from '../services/settings/keyStore';
import { LlmSettingsFile, llmConfigFromSettings } from '../host/llmSettings';
import { AgentHost } from '../host/agent';
import type { HostEvents } from '../../shared/contract';
import { composeWorkspace, openUserSettings, openWorktrees, type Asker, type WorkspaceServices } from '../workspace/compose';
import type { WorkspaceWatcher } from '../services/workspace/watcher';
import type { Worktrees } from '../services/worktrees/worktrees';
import { parseArgs } from './args';
import type { ProcessManager } from '../services/processes/processManager';
import type { ProcessView } from '../../shared/contract';
import { workspaceRoot } from './mcp';
import { settleTrust } from './trust';
import { carryTrust } from '../services/worktrees/trust';
import { undoLast } from './undoLast';
import { lineQueue } from './stdinLines';
import type { CliPaths } from './paths';

const USAGE =
  'Usage: loupe run [--cwd DIR] [--worktree NAME] [--yes | --deny] [--json] [--session ID] [--trust] [--keep-processes] [--mode act|plan] [--queue] [--agent NAME] "prompt"\n       loupe run --remote ssh://[user@]host[:port]/path [--yes | --deny] [--json] [--session ID] [--trust] [--keep-processes] [--mode act|plan] "prompt"\n       loupe run --undo-last [--cwd DIR] [--worktree NAME] [--session ID] [--skip-conflicts] [--json]';
export const RUN_EXIT: Record<RunStatus, number> = { done: 0, error: 1, turn_limit: 3, aborted: 130 };

type Mode = 'yes' | 'deny' | 'ask';

const oneLine = (s: string, max = 120): string => {
  const line = s.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

async function askOnTerminal(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const why = req.rule ? `rule ${req.rule}` : 'no rule matches';
    const always = req.always.length ? ` [a]lways (adds ${req.always.map((r) => JSON.stringify(r)).join(', ')})` : '';
    process.stderr.write(`\n? ${req.tool} wants to ${req.kind === 'edit' ? '' : 'run: '}${req.summary}\n  ${req.reason} (${why})\n`);
    if (req.risk?.length) process.stderr.write(`  RISKY: ${req.risk.join('; ')}.\n`);
    if (req.background) process.stderr.write('  It keeps running in the background after this call (until stopped, or idle too long).\n');
    // An edit in "ask" mode: the change itself, so the answer is about what will be written.
    if (req.diff) process.stderr.write(`${req.diff.replace(/^/gm, '  | ')}\n`);
    // An MCP call's arguments, a server's whole configuration.
    if (req.details) process.stderr.write(`${req.details.replace(/^/gm, '  | ')}\n`);
    for (;;) {
      const a = (await rl.question(`  Allow [o]nce,${always} or [d]eny? `, { signal })).trim();
      if (/^o(nce)?$/i.test(a) || /^y(es)?$/i.test(a)) return { answer: 'once' };
      if (always && /^a(lways)?$/i.test(a)) return { answer: 'always' };
      if (/^d(eny)?$/i.test(a) || /^n(o)?$/i.test(a)) {
        const message = (await rl.question('  Message for the agent (optional): ', { signal })).trim();
        return { answer: 'deny', ...(message ? { message } : {}) };
      }
    }
  } finally {
    rl.close();
  }
}

function askerFor(mode: Mode, note: (s: string) => void): Asker {
  if (mode === 'yes') {
    return {
      kind: 'responder',
      respond: async (req) => {
        note(`(allowed by --yes: ${req.summary})`);
        return { answer: 'once' };
      },
    };
  }
  return mode === 'ask' ? { kind: 'responder', respond: askOnTerminal } : { kind: 'deny' };
}

/**
 * Assistant text as it streams, one line per tool call, notes on stderr. A subagent's work is a
 * line when it starts, one per tool call it makes (indented, named by its description) and one
 * when it ends; its own words reach the parent as its result.
 */
export function humanPrinter(): (e: AgentEvent) => void {
  let atLineStart = true;
  const out = (s: string) => {
    if (!s) return;
    process.stdout.write(s);
    atLineStart = s.endsWith('\n');
  };
  const newline = () => !atLineStart && out('\n');
  const agents = new Map<string, { label: string; indent: string }>();
  const child = (id: string, e: AgentEvent) => {
    if (e.type === 'subagent_started') {
      const indent = '  '.repeat((agents.get(e.parent_session_id ?? '')?.indent.length ?? 0) / 2 + 1);
      agents.set(id, { label: e.description, indent });
      newline();
      return out(`${indent}⇢ ${e.agent_type} agent: ${oneLine(e.description, 80)}${e.background ? ' (background)' : ''}${e.read_only ? ', read-only' : ''}\n`);
    }
    const a = agents.get(id) ?? { label: id, indent: '  ' };
    switch (e.type) {
      case 'tool_call_started':
        newline();
        return out(`${a.indent}  [${oneLine(a.label, 40)}] → ${e.tool} ${oneLine(e.summary, 80)}\n`);
      case 'tool_call_finished':
        return e.ok ? undefined : out(`${a.indent}  [${oneLine(a.label, 40)}] ✗ ${e.tool}: ${e.error ? `${e.error.code}: ${oneLine(e.error.message, 160)}` : oneLine(e.output, 160)}\n`);
      case 'subagent_finished':
        newline();
        return out(`${a.indent}⇠ ${oneLine(a.label, 80)}: ${e.status}, ${e.turns} turn${e.turns === 1 ? '' : 's'}, ${e.tokens.toLocaleString('en-US')} tokens${e.files.length ? `; changed ${e.files.join(', ')}` : ''}${e.reason ? ` (${oneLine(e.reason, 160)})` : ''}\n`);
      case 'error':
        return void process.stderr.write(`loupe run: [${oneLine(a.label, 40)}] ${e.code}: ${oneLine(e.message, 300)}\n`);
    }
  };
  return (e) => {
    if (e.agent_id) return child(e.agent_id, e);
    switch (e.type) {
      case 'text_delta':
        return out(e.text);
      case 'tool_call_started':
        newline();
        return out(`→ ${e.tool} ${oneLine(e.summary, 100)}\n`);
      case 'tool_call_finished': {
        // The person's words (the model's name its tools); a hook's refusal was printed with the hook.
        const said = e.for_person ?? e.output;
        if (e.ok) return out(`  ✓ ${e.tool}: ${oneLine(said) || 'done'}\n`);
        const why = e.error ? `${e.error.code}: ${e.error.details?.denied_by === 'hook' ? 'blocked by the hook above' : oneLine(e.error.for_person ?? e.error.message, 200)}` : oneLine(said, 200);
        return out(`  ✗ ${e.tool}: ${why}\n`);
      }
      case 'notice':
        return void process.stderr.write(`(${oneLine(e.text, 300)})\n`);
      case 'hook':
        // One line per hook that decided something, under the call it was about.
        newline();
        return out(`  ${e.call_id ? '↳' : '•'} hook ${e.event} ${e.decision} (${e.source}: ${oneLine(e.hook, 80)}, ${e.ms} ms)${e.reason ? `: ${oneLine(e.reason, 200)}` : ''}\n`);
      case 'retry':
        return void process.stderr.write(`(model request failed: ${oneLine(e.reason)}; retry ${e.attempt} in ${(e.delay_ms / 1000).toFixed(1)}s)\n`);
      case 'system_prompt': {
        // What the agent was told, on stderr: the instruction files in use and any skipped.
        const used = e.files.map((f) => f.path);
        const skipped = e.skipped.map((f) => `${f.path} ${f.reason}`);
        if (used.length) process.stderr.write(`(instructions: ${used.join(', ')})\n`);
        for (const line of skipped) process.stderr.write(`(instruction file skipped: ${oneLine(line, 300)})\n`);
        return;
      }
      case 'plan':
        return void process.stderr.write(`(plan saved as ${e.path}; it changed nothing — run it without --mode plan to carry it out)\n`);
      case 'command_expanded':
        return void process.stderr.write(`(/${e.name}, ${e.source === 'personal' ? 'yours' : e.source === 'repository' ? "the repository's" : 'built in'}, sent as ${e.text.length.toLocaleString('en-US')} characters)\n`);
      case 'steer':
        return void process.stderr.write(`(queued message given to the model: ${oneLine(e.text)})\n`);
      case 'compacted':
        return void process.stderr.write(`(conversation compacted: ${e.removed_messages} messages ${e.mode === 'summary' ? 'summarised' : 'dropped'})\n`);
      case 'request_finished':
        newline();
        // The last words: what the request cost and how full the context is.
        if (e.usage) process.stderr.write(`(${describeUsage(e.usage)})\n`);
        return;
      case 'error':
        newline();
        return void process.stderr.write(`loupe run: ${e.code}: ${e.message}\n`);
    }
  };
}

/** The model: the user's settings, each field overridden by its environment variable. */
export async function runLlmConfig(
  settings: UserSettings | string,
  env: NodeJS.ProcessEnv,
  note: (s: string) => void,
  keyStore: KeyStore | null = systemKeyStore(typeof settings === 'string' ? settings : path.dirname(settings.file), process.platform, env),
): Promise<LlmConfig | null> {
  return llmConfigFromSettings(new LlmSettingsFile(typeof settings === 'string' ? openUserSettings(settings) : settings, { keyStore }), env, (s) => note(`loupe run: ${s}`));
}

/**
 * The folder the run works in: `--cwd` (or the current folder), or with `--worktree NAME` Loupe's
 * worktree of it, made on first use (`create` says whether it was).
 */
async function runRoot(flags: Record<string, string | true>, user: UserSettings, note: (s: string) => void, create: boolean): Promise<{ root: string; worktrees?: Worktrees }> {
  const root = await workspaceRoot(typeof flags.cwd === 'string' ? flags.cwd : undefined);
  if (flags.worktree === undefined) return { root };
  if (typeof flags.worktree !== 'string') throw new InvalidArgumentError(`--worktree needs a name. ${USAGE}`);
  const worktrees = openWorktrees(root, user);
  if (!create) return { root: await workspaceRoot(await worktrees.pathOf(flags.worktree)) };
  const wt = await worktrees.create(flags.worktree);
  note(`(${wt.created ? 'made' : 'working in'} worktree ${flags.worktree} at ${wt.path}, branch ${wt.branch}; the main folder is not touched)`);
  const p = wt.prepared;
  if (p && (p.copied.length || p.linked.length)) note(`(prepared from the main folder: ${[...p.copied.map((c) => `copied ${c}`), ...p.linked.map((l) => `linked ${l}`)].join(', ')})`);
  for (const s of p?.skipped ?? []) note(`(worktree setup skipped ${s.path}: ${s.why})`);
  // The main folder's trust holds here while the worktree's config is the same bytes.
  if (await carryTrust(root, wt.path, user)) note('(the main folder\'s trust of its config applies: same bytes here)');
  // Kept until the run ends: the spare checkout for the next worktree is made meanwhile, or stopped then.
  return { root: await workspaceRoot(wt.path), worktrees };
}

async function undoLastRun(flags: Record<string, string | true>): Promise<number> {
  const user = openUserSettings(defaultConfigDir());
  const { root } = await runRoot(flags, user, () => undefined, false);
  const { logger } = userLog({ configDir: defaultConfigDir(), stderr: 'env' });
  const services = composeWorkspace({ root, user, asker: { kind: 'deny' }, logger });
  try {
    return await undoLast(services, { ...(typeof flags.session === 'string' ? { session: flags.session } : {}), skipConflicts: flags['skip-conflicts'] === true, json: flags.json === true });
  } finally {
    await services.dispose();
  }
}

export async function runRun(args: string[], paths?: CliPaths): Promise<number> {
  const { flags, positionals } = parseArgs(args, {
    cwd: 'string',
    yes: 'boolean',
    deny: 'boolean',
    json: 'boolean',
    session: 'string',
    trust: 'boolean',
    'keep-processes': 'boolean',
    'undo-last': 'boolean',
    'skip-conflicts': 'boolean',
    mode: 'string',
    queue: 'boolean',
    worktree: 'string',
    agent: 'string',
    remote: 'string',
  });
  const prompt = positionals.join(' ').trim();
  if (typeof flags.remote === 'string') {
    // The agent works there: in the remote folder's host, not in a folder of this machine.
    for (const local of ['cwd', 'worktree', 'undo-last', 'queue'] as const) if (flags[local]) throw new InvalidArgumentError(`--${local} is for a folder of this machine; with --remote the folder is the remote one. ${USAGE}`);
    if (!prompt) throw new InvalidArgumentError(`Give the agent a request. ${USAGE}`);
    const runMode = flags.mode ?? 'act';
    if (runMode !== 'act' && runMode !== 'plan') throw new InvalidArgumentError(`--mode is act or plan (got ${JSON.stringify(runMode)}). ${USAGE}`);
    if (!paths) throw new InvalidArgumentError('loupe run --remote needs the installed Loupe (bin/loupe.mjs).');
    const { runRemoteRun } = await import('../remote/runRemote');
    return runRemoteRun(
      { remote: flags.remote, yes: flags.yes === true, deny: flags.deny === true, json: flags.json === true, ...(typeof flags.session === 'string' ? { session: flags.session } : {}), mode: runMode, keepProcesses: flags['keep-processes'] === true, trust: flags.trust === true },
      prompt,
      paths,
    );
  }
  if (flags['undo-last']) {
    if (prompt) throw new InvalidArgumentError(`--undo-last takes no prompt. ${USAGE}`);
    return undoLastRun(flags);
  }
  if (!prompt) throw new InvalidArgumentError(`Give the agent a request. ${USAGE}`);
  if (flags.yes && flags.deny) throw new InvalidArgumentError(`--yes and --deny exclude each other. ${USAGE}`);
  const runMode = flags.mode ?? 'act';
  if (runMode !== 'act' && runMode !== 'plan') throw new InvalidArgumentError(`--mode is act or plan (got ${JSON.stringify(runMode)}). ${USAGE}`);
  if (flags.queue && process.stdin.isTTY) throw new InvalidArgumentError('--queue reads further messages from stdin, which is a terminal here: pipe them in (one a line).');
  const json = flags.json === true;
  const mode: Mode = flags.yes ? 'yes' : flags.deny ? 'deny' : process.stdin.isTTY ? 'ask' : 'deny';
  const note = (s: string) => !json && process.stderr.write(`${s}\n`);
  // The user's log file always; stderr too when LOUPE_LOG is set (stdout is the answer).
  const { logger } = userLog({ configDir: defaultConfigDir(), stderr: 'env' });

  // Problems in the user's settings and the project's config are said once, on stderr even with --json.
  const report = (p: ConfigProblem) => {
    process.stderr.write(`loupe: ${describeProblem(p)}\n`);
    logger.warn('config.problem', { ...p });
  };
  const user = openUserSettings(defaultConfigDir(), report);
  // Said on stderr even with --json, like the other notes about where the run works.
  const { root, worktrees } = await runRoot(flags, user, (s) => process.stderr.write(`${s}\n`), true);
  const services = composeWorkspace({ root, user, asker: askerFor(mode, note), logger, reportConfig: report });
  services.onWarning(note);
  const print = json ? (e: AgentEvent) => process.stdout.write(`${JSON.stringify(e)}\n`) : humanPrinter();
  // The host's own sessions and requests, as the app runs them: each request goes to the session's runner.
  const agent = new AgentHost({
    user,
    services: () => services,
    emit: (event, payload) => event === 'chat.event' && print((payload as HostEvents['chat.event']).event),
    keys: { keyStore: systemKeyStore(defaultConfigDir(), process.platform, process.env) },
    logger,
    joinDeltas: false,
  });
  if (flags.agent !== undefined && typeof flags.agent !== 'string') throw new InvalidArgumentError(`--agent needs a name from "agents" in your settings or the folder's config. ${USAGE}`);
  const sessionId = typeof flags.session === 'string' ? (await agent.getSession(flags.session)).session.id : (await agent.newSession(typeof flags.agent === 'string' ? flags.agent : undefined)).id;
  logger.info('run.started', { root, session: sessionId, mode });
  // A saved key that cannot be read is said once, before anything runs.
  await runLlmConfig(user, process.env, note);

  // Said on stderr even with --json: stdout is the event stream.
  await settleTrust(root, flags.trust === true, (line) => process.stderr.write(`${line}\n`), user);
  await services.project.load();
  // --trust is the approval of the servers the trusted config names; one line per server, on stderr.
  if (flags.trust === true) {
    services.mcp.approveConfigured();
    // And of the hooks it names: they run without a card (still only in a trusted folder, inside the sandbox).
    services.hooks.approveConfigured();
    // And of the agents it names.
    services.hostedAgents.approveConfigured();
  }
  // A remote server that needs sign-in: the page to open, said as soon as it is known, for the
  // whole run (a server that asks for more access mid-request signs in again), and awaited.
  const shown = new Set<string>();
  const offSignIn = services.mcp.onChange(() => {
    for (const v of services.mcp.list()) {
      if (!v.sign_in_url || shown.has(v.sign_in_url)) continue;
      shown.add(v.sign_in_url);
      process.stderr.write(`loupe: MCP server ${v.name} needs you to sign in: open ${v.sign_in_url}\n`);
    }
  });
  await services.mcp.sync();
  for (const v of services.mcp.list()) process.stderr.write(`${describeServerLine(v)}\n`);
  const watcher = await watchForHooks(services);

  // Ctrl-C stops the request (the stream and every running tool); a second one quits at once.
  let stopping = false;
  const quit = new AbortController();
  const onSigint = () => {
    if (stopping) process.exit(130);
    stopping = true;
    quit.abort();
    void agent.stop(sessionId);
  };
  process.on('SIGINT', onSigint);
  const queue = flags.queue ? lineQueue(process.stdin) : null;
  try {
    let next: string | null = prompt;
    let status: RunStatus = 'done';
    while (next !== null) {
      try {
        status = await (await requestAsking(agent, { session_id: sessionId, text: next, mode: runMode }, mode === 'ask')).finished;
      } catch (err) {
        // Refused before it started (no model connected, a bad argument): said like a failed request.
        const e = toWireError(err);
        process.stderr.write(`loupe run: ${e.code}: ${e.message}\n`);
        status = 'error';
      }
      // A stop ends the run; otherwise the next line on stdin is the next message.
      next = queue && status !== 'aborted' ? await queue.next(quit.signal) : null;
    }
    note(`(session ${sessionId} — continue it with --session ${sessionId})`);
    await settleProcesses(services.processes, flags['keep-processes'] === true);
    return RUN_EXIT[status];
  } finally {
    quit.abort();
    offSignIn();
    queue?.close();
    process.off('SIGINT', onSigint);
    await agent.dispose();
    await watcher?.stop();
    await Promise.all([services.dispose(), worktrees?.dispose()]);
  }
}

/**
 * A hook around every tool call is a process whose writes are recorded, each between two
 * snapshots of the work tree. The app makes those from the paths its watcher saw change; without
 * one, each walks the tree (two git runs per call). So when hooks fire around tool calls, the run
 * watches the folder too (docs/architecture.md, "Hooks").
 */
export async function watchForHooks(services: WorkspaceServices): Promise<WorkspaceWatcher | null> {
  const around = await Promise.all((['PreToolUse', 'PostToolUse', 'PostToolUseFailure'] as const).map((e) => services.hooks.has(e)));
  if (!around.some(Boolean)) return null;
  const watcher = services.watch(
    () => undefined,
    () => undefined,
  );
  await watcher.start();
  return watcher;
}

/**
 * A request whose command asks for values by name (VS Code's `${input:…}`): asked for on an
 * interactive terminal, one line each, then sent again with them; elsewhere refused with what to type.
 */
async function requestAsking(agent: AgentHost, p: Parameters<AgentHost['request']>[0], interactive: boolean): ReturnType<AgentHost['request']> {
  try {
    return await agent.request(p);
  } catch (err) {
    const missing = err instanceof LoupeError ? (err.details?.missing_inputs as { name: string; placeholder?: string }[] | undefined) : undefined;
    if (!missing?.length || !interactive) throw err;
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    const inputs: Record<string, string> = { ...p.inputs };
    try {
      for (const m of missing) inputs[m.name] = await rl.question(`? ${m.name}${m.placeholder ? ` (${m.placeholder})` : ''}: `);
    } finally {
      rl.close();
    }
    return agent.request({ ...p, inputs });
  }
}

/**
 * The background processes this run started, listed on stderr. They stop when it exits; with
 * --keep-processes it stays (their ports stay forwarded) until they have all ended or Ctrl-C.
 */
async function settleProcesses(processes: ProcessManager, keep: boolean): Promise<void> {
  const all = processes.list();
  if (!all.length) return;
  const line = (p: ProcessView) => `  ${p.process_id} [${p.status === 'exited' ? `exited ${p.exit_code ?? p.signal}` : p.status}] ${p.command}${p.forwards.map((f) => ` http://127.0.0.1:${f.host_port}/`).join('')}`;
  process.stderr.write(`Background processes:\n${all.map(line).join('\n')}\n`);
  const running = processes.running();
  if (!running.length) return;
  if (!keep) {
    process.stderr.write(`Stopping ${running.map((p) => p.process_id).join(', ')} (--keep-processes keeps them running until Ctrl-C).\n`);
    return;
  }
  process.stderr.write('Keeping them running; press Ctrl-C to stop them and exit.\n');
  await new Promise<void>((resolve) => {
    const done = () => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      off();
      resolve();
    };
    const off = processes.subscribe({ onExited: () => processes.running().length === 0 && done() });
    process.on('SIGINT', done);
    process.on('SIGTERM', done);
  });
}
