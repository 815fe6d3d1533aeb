// Agent definitions: the helpers a session may start (docs/architecture.md, "Subagents"), as
// other agents' users already wrote them — Markdown with front matter in `.loupe/agents/*.md`,
// Claude Code's `.claude/agents/*.md`, GitHub Copilot's `.github/agents/*.agent.md`, OpenCode's
// `.opencode/agent/*.md` (and its newer `.opencode/agents/`), and the person's own
// `~/.claude/agents/*.md`. A repository's files are its text: what they say is read, never run,
// and the agent layer lets them only narrow what a child may do. Read through real folders only
// (a link is skipped and said), each file at most 256 KB, on every use: a text is reused while
// its file is unchanged.
import { realpath } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { readInside } from '../files/safeOpen';
import { readdirInside } from '../files/safeWrite';
import { readFrontMatter, type FrontValue } from './frontMatter';

/** Whose format a file is in: its tool names are read in that agent's words. */
export type DefinitionDialect = 'loupe' | 'claude' | 'github' | 'opencode';

export interface AgentDefinition {
  /** What the model names it by (`agent_type`). */
  name: string;
  description: string;
  /** Tool names as the file wrote them, in its dialect; null: every tool of the parent. */
  tools: string[] | null;
  /** Tool names taken away (Claude's disallowedTools, OpenCode's `tools: {x: false}`). */
  disallowedTools: string[];
  /** Permission kinds the file denies outright (OpenCode's `permission: {edit: deny}`). */
  deniedKinds: string[];
  /** `permissionMode: plan`: the child only reads. */
  readOnly: boolean;
  model?: string;
  maxTurns?: number;
  isolation?: 'worktree';
  background?: boolean;
  /** The body: the child's instructions. */
  instructions: string;
  dialect: DefinitionDialect;
  /** Workspace-relative for the repository's files; absolute for the person's. */
  path: string;
}

export interface DefinitionProblem {
  path: string;
  message: string;
}

export interface DefinitionList {
  /** First of a name wins: the repository's Loupe files, then Claude's, GitHub's, OpenCode's, then the person's. */
  definitions: AgentDefinition[];
  problems: DefinitionProblem[];
}

/** Where definitions live in a repository, in the order a name is looked for. */
export const DEFINITION_FOLDERS: { dir: string; suffix: string; dialect: DefinitionDialect }[] = [
  { dir: '.loupe/agents', suffix: '.md', dialect: 'loupe' },
  { dir: '.claude/agents', suffix: '.md', dialect: 'claude' },
  { dir: '.github/agents', suffix: '.agent.md', dialect: 'github' },
  { dir: '.opencode/agent', suffix: '.md', dialect: 'opencode' },
  { dir: '.opencode/agents', suffix: '.md', dialect: 'opencode' },
];

export const MAX_DEFINITION_BYTES = 256 * 1024;
const MAX_FILES_PER_FOLDER = 200;
/** A name the model can type, and a file name can hold. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9 _.:-]{0,63}$/;

interface Cached {
  key: string;
  parsed: { definition: AgentDefinition | null; problems: string[] };
}

export interface AgentDefinitionsOptions {
  /** Realpath of the workspace. */
  root: string;
  /** The person's home folder, whose `.claude/agents` applies to every project; null: none. Default: $HOME as the process has it. */
  home?: () => string | null;
}

export class AgentDefinitions {
  private readonly cache = new Map<string, Cached>();

  constructor(private readonly opts: AgentDefinitionsOptions) {}

  async list(): Promise<DefinitionList> {
    const out: DefinitionList = { definitions: [], problems: [] };
    const seen = new Set<string>();
    const take = (found: { definition: AgentDefinition | null; problems: DefinitionProblem[] }[]) => {
      for (const f of found) {
        out.problems.push(...f.problems);
        const d = f.definition;
        if (!d) continue;
        const key = d.name.toLowerCase();
        if (seen.has(key)) continue;
        seen.add(key);
        out.definitions.push(d);
      }
    };
    for (const folder of DEFINITION_FOLDERS) take(await this.folder(this.opts.root, path.join(this.opts.root, folder.dir), folder.suffix, folder.dialect, false));
    const home = (this.opts.home ?? (() => process.env.HOME || os.homedir() || null))();
    if (home) {
      const dir = await realpath(path.join(home, '.claude', 'agents')).catch(() => null);
      if (dir) take(await this.folder(dir, dir, '.md', 'claude', true));
    }
    return out;
  }

  private async folder(root: string, dir: string, suffix: string, dialect: DefinitionDialect, personal: boolean) {
    const names = (await readdirInside(root, dir).catch(() => [] as string[])).filter((n) => n.endsWith(suffix) && !n.startsWith('.')).sort();
    const shown = (n: string) => (personal ? path.join(dir, n) : path.relative(this.opts.root, path.join(dir, n)).split(path.sep).join('/'));
    const found: { definition: AgentDefinition | null; problems: DefinitionProblem[] }[] = [];
    if (names.length > MAX_FILES_PER_FOLDER) found.push({ definition: null, problems: [{ path: shown(''), message: `has ${names.length} files; only the first ${MAX_FILES_PER_FOLDER} are read` }] });
    for (const name of names.slice(0, MAX_FILES_PER_FOLDER)) {
      const where = shown(name);
      try {
        const read = await readInside(root, path.join(dir, name), { maxBytes: MAX_DEFINITION_BYTES, rel: where });
        if (!read) continue;
        const key = `${read.st.dev}:${read.st.ino}:${read.st.size}:${read.st.mtimeMs}:${read.st.ctimeMs}`;
        let cached = this.cache.get(where);
        if (cached?.key !== key) {
          cached = { key, parsed: parseDefinition(read.buf.toString('utf8'), name.slice(0, -suffix.length), dialect, where) };
          this.cache.set(where, cached);
        }
        found.push({ definition: cached.parsed.definition, problems: cached.parsed.problems.map((message) => ({ path: where, message })) });
      } catch (err) {
        found.push({ definition: null, problems: [{ path: where, message: `not read: ${(err as Error).message}` }] });
      }
    }
    return found;
  }
}

const str = (v: FrontValue | undefined): string | undefined => (typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : undefined);

/** A tool list as any of the formats write it: "A, B", [A, B], or OpenCode's {a: true, b: false}. */
function names(v: FrontValue | undefined): { allow: string[] | null; deny: string[] } {
  if (v === undefined || v === null) return { allow: null, deny: [] };
  if (typeof v === 'string') return { allow: splitList(v), deny: [] };
  if (Array.isArray(v)) return { allow: v.flatMap((x) => (typeof x === 'string' ? splitList(x) : [])), deny: [] };
  if (typeof v === 'object') {
    // OpenCode: every tool unless set false.
    const deny = Object.entries(v).filter(([, on]) => on === false).map(([k]) => k);
    return { allow: null, deny };
  }
  return { allow: [], deny: [] };
}

/** "Read, Grep, Agent(explore, general)": commas inside parentheses stay with their name; "Read Grep" (no comma) is two. */
function splitList(s: string): string[] {
  if (!s.includes(',') && !s.includes('(')) return s.split(/\s+/).map(unquote).filter(Boolean);
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const c of s) {
    if (c === '(') depth++;
    if (c === ')') depth = Math.max(0, depth - 1);
    if (c === ',' && depth === 0) {
      out.push(cur);
      cur = '';
      continue;
    }
    cur += c;
  }
  out.push(cur);
  return out.map(unquote).filter(Boolean);
}

const unquote = (x: string) => x.trim().replace(/^["']|["']$/g, '');

/** OpenCode's `permission` (a map) and `permissions` (a list of {action, effect}): the kinds it denies whole. */
function deniedKinds(data: Record<string, FrontValue>, problems: string[]): string[] {
  const out = new Set<string>();
  const perm = data.permission;
  if (perm && typeof perm === 'object' && !Array.isArray(perm)) {
    for (const [kind, rule] of Object.entries(perm)) {
      if (rule === 'deny') out.add(kind);
      else if (rule && typeof rule === 'object' && !Array.isArray(rule) && (rule as Record<string, FrontValue>)['*'] === 'deny') {
        // Only some patterns allowed: Loupe cannot say which, so the child gets none (stricter, never wider).
        out.add(kind);
        problems.push(`permission.${kind} allows only some patterns; the child gets no ${kind} at all`);
      }
    }
  }
  const list = data.permissions;
  if (Array.isArray(list)) {
    for (const r of list) {
      if (!r || typeof r !== 'object' || Array.isArray(r)) continue;
      const rule = r as Record<string, FrontValue>;
      if (rule.effect === 'deny' && typeof rule.action === 'string' && (rule.resource === undefined || rule.resource === '*')) out.add(rule.action);
    }
  }
  return [...out];
}

export function parseDefinition(text: string, fileName: string, dialect: DefinitionDialect, where: string): { definition: AgentDefinition | null; problems: string[] } {
  const fm = readFrontMatter(text);
  const problems = fm.problems.map((p) => `line ${p.line}: ${p.message}`);
  const d = fm.data;
  if (d.disable === true || d.disabled === true) return { definition: null, problems };
  // OpenCode's primary agents are for the person to switch to, not for delegation; Copilot's
  // agents can opt out of being started by another.
  if (d.mode === 'primary') return { definition: null, problems };
  if (d['disable-model-invocation'] === true || d.infer === false) return { definition: null, problems };
  const name = str(d.name) ?? fileName;
  if (!NAME.test(name)) return { definition: null, problems: [...problems, `the name ${JSON.stringify(name)} is not one a model can name (letters, digits, space, _ . : -; at most 64)`] };
  const description = str(d.description);
  if (!description) return { definition: null, problems: [...problems, 'has no description, so no agent would know when to start it'] };
  const tools = names(d.tools);
  const disallowed = names(d.disallowedTools ?? d.disallowed_tools);
  const turns = d.maxTurns ?? d.max_turns ?? d.maxSteps ?? d.steps;
  const maxTurns = typeof turns === 'number' && Number.isInteger(turns) && turns > 0 ? turns : undefined;
  if (turns !== undefined && maxTurns === undefined) problems.push(`maxTurns ${JSON.stringify(turns)} is not a positive whole number; ignored`);
  const isolation = d.isolation === 'worktree' ? 'worktree' : undefined;
  if (d.isolation !== undefined && d.isolation !== null && !isolation) problems.push(`isolation ${JSON.stringify(d.isolation)} is not "worktree"; ignored`);
  const model = Array.isArray(d.model) ? str(d.model.find((m) => typeof m === 'string')) : str(d.model);
  return {
    definition: {
      name,
      description: description.replace(/\s+$/, ''),
      tools: tools.allow,
      disallowedTools: [...tools.deny, ...(disallowed.allow ?? []), ...disallowed.deny],
      deniedKinds: deniedKinds(d, problems),
      readOnly: d.permissionMode === 'plan',
      ...(model && model !== 'inherit' ? { model } : {}),
      ...(maxTurns ? { maxTurns } : {}),
      ...(isolation ? { isolation } : {}),
      ...(typeof d.background === 'boolean' ? { background: d.background } : {}),
      instructions: fm.body.trim(),
      dialect,
      path: where,
    },
    problems,
  };
}
