// The `agents` key (docs/architecture.md, "Hosted agents"): other coding agents Loupe runs as a
// session's runner over the Agent Client Protocol. One schema for the person's settings.json and a
// repository's `.loupe/config.json`. An agent is taken whole or not at all (half an entry could
// start another program), each problem reported where it is written. A few ready entries name the
// agents people use (OpenCode, Gemini CLI, Claude Code through its ACP adapter, Codex through its
// adapter): the person enables one when its program is installed, which writes it into their
// settings as they would have written it.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { problemAt, type ConfigProblem, type Path } from './validate';
import { parseHostEntry, HOST_ENTRY_HELP } from '../permissions/hostEntry';

/** A name usable in `acp:<name>` (a modification's tool) and in a session's record. */
export const AGENT_NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;

/** The name of Loupe's own loop as a session's agent: never a hosted agent's. */
export const LOUPE_AGENT = 'loupe';

export const AgentEntrySchema = z.strictObject({
  /** The program: a name found on PATH, or an absolute path. */
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  /** Added to the agent's environment; values may use `${env:VAR}` (its API key, from Loupe's environment). */
  env: z.record(z.string(), z.string()).optional(),
  /** The hosts it may reach through the sandbox's proxy (its model API); `127.0.0.1:PORT` forwards that port of this machine. */
  network: z.strictObject({ hosts: z.array(z.string().min(1).refine((h) => parseHostEntry(h) !== null, { error: (i) => `${JSON.stringify(i.input)} is not ${HOST_ENTRY_HELP}` })) }).optional(),
  /** Shown in the session bar (default: the ready entry's label, else the name). */
  label: z.string().min(1).max(40).optional(),
  /** The session mode the agent is put in, where it has modes: the one that asks before acting (default: found by name). */
  mode: z.string().min(1).optional(),
  disabled: z.boolean().optional(),
});

export type AgentEntry = z.output<typeof AgentEntrySchema>;
export const AgentsSchema = z.record(z.string(), AgentEntrySchema);

/** Who declared an agent: the person (settings, every folder) or the repository (its config). */
export type AgentSource = 'user' | 'project';

export interface AgentDecl {
  name: string;
  source: AgentSource;
  /** The file it is written in, as the person would open it. */
  file: string;
  entry: AgentEntry;
}

/** A ready entry: what runs the agent, and the hosts of its vendor's API. */
export interface ReadyAgent {
  name: string;
  label: string;
  entry: AgentEntry;
  /** How to install its program, for the settings to say when it is not found. */
  install: string;
}

/**
 * The agents people already use, as Loupe runs them. Each runs in its mode that asks before acting
 * (found by name when the entry names none); each one's own state (logins, caches) lives in a folder
 * Loupe keeps for it, never in the workspace, so its keys come from the environment (`${env:…}`).
 */
export const READY_AGENTS: readonly ReadyAgent[] = [
  {
    name: 'opencode',
    label: 'OpenCode',
    install: 'npm install -g opencode-ai',
    entry: {
      command: 'opencode',
      args: ['acp'],
      // Nothing it would fetch for itself at start (model lists, updates, plugins, language servers).
      env: { OPENCODE_DISABLE_MODELS_FETCH: 'true', OPENCODE_DISABLE_AUTOUPDATE: 'true', OPENCODE_DISABLE_DEFAULT_PLUGINS: 'true', OPENCODE_DISABLE_LSP_DOWNLOAD: 'true', OPENCODE_DISABLE_SHARE: 'true' },
      network: { hosts: ['api.openai.com', 'api.anthropic.com', 'openrouter.ai', 'opencode.ai', 'models.dev'] },
    },
  },
  {
    name: 'gemini',
    label: 'Gemini CLI',
    install: 'npm install -g @google/gemini-cli',
    entry: { command: 'gemini', args: ['--acp'], env: { GEMINI_API_KEY: '${env:GEMINI_API_KEY}' }, network: { hosts: ['generativelanguage.googleapis.com', '*.googleapis.com'] }, mode: 'default' },
  },
  {
    name: 'claude',
    label: 'Claude Code',
    install: 'npm install -g @zed-industries/claude-agent-acp',
    entry: { command: 'claude-agent-acp', env: { ANTHROPIC_API_KEY: '${env:ANTHROPIC_API_KEY}' }, network: { hosts: ['api.anthropic.com', 'statsig.anthropic.com'] }, mode: 'default' },
  },
  {
    name: 'codex',
    label: 'Codex',
    install: 'npm install -g @zed-industries/codex-acp',
    entry: { command: 'codex-acp', env: { OPENAI_API_KEY: '${env:OPENAI_API_KEY}' }, network: { hosts: ['api.openai.com', 'chatgpt.com'] }, mode: 'read-only' },
  },
];

export const readyAgent = (name: string): ReadyAgent | undefined => READY_AGENTS.find((a) => a.name === name);

/**
 * The valid entries of one file's `agents` as declarations. A name that cannot be part of
 * `acp:<name>`, or Loupe's own, is a problem and the entry is left out.
 */
export function declaredAgents(agents: Record<string, AgentEntry> | undefined, source: AgentSource, file: string, text?: string): { agents: AgentDecl[]; problems: ConfigProblem[] } {
  const out: AgentDecl[] = [];
  const problems: ConfigProblem[] = [];
  const at = (...p: Path): Path => ['agents', ...p];
  for (const [name, entry] of Object.entries(agents ?? {})) {
    if (!AGENT_NAME.test(name) || name === LOUPE_AGENT) {
      problems.push(problemAt(file, text, at(name), `the name must be 1-32 lower-case letters, digits, "_" or "-", and not "${LOUPE_AGENT}" (it names the agent's changes as acp:<name>); the agent is ignored`));
      continue;
    }
    out.push({ name, source, file, entry });
  }
  return { agents: out, problems };
}

const quote = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** The exact command line, as a shell would read it: what an approval card shows. */
export function agentCommandLine(entry: AgentEntry): string {
  return [entry.command, ...(entry.args ?? [])].map(quote).join(' ');
}

/** Everything that decides what runs, one fact a line: the card for starting a repository's agent. */
export function describeAgent(decl: AgentDecl): string {
  const e = decl.entry;
  const lines = [agentCommandLine(e)];
  for (const [k, v] of Object.entries(e.env ?? {})) lines.push(`env ${k}=${v}`);
  lines.push(e.network?.hosts.length ? `network: ${e.network.hosts.join(', ')}` : 'no network');
  return lines.join('\n');
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])]));
  return v;
}

/** Names the agent's configuration as written (unexpanded): an approval holds until it changes. */
export function agentDigest(decl: AgentDecl): string {
  const { disabled: _d, label: _l, ...what } = decl.entry;
  return createHash('sha256').update(JSON.stringify(canonical({ name: decl.name, ...what }))).digest('hex');
}
