// What a child may use (docs/architecture.md, "Subagents"): its definition's tools, read in the
// words of the agent that wrote the file, intersected with what its parent holds. A file can
// only take away: a name that matches nothing here grants nothing, and a child never holds a
// tool, a permission kind or a mode its parent lacks. Tools are matched by the facts they state
// (the permission they ask, whether they start children), so no list of Loupe's tool names is
// kept here and a tool added later is placed by its facts.
import type { AgentDefinition, DefinitionDialect } from '../../services/agents/definitions';
import { modeRefusal } from '../../services/permissions/planMode';
import type { PermissionKind } from '../../services/permissions/types';
import type { ToolFacts } from '../tools/types';

/** What a word in a definition's tool list stands for: the tools asking these permission kinds, or the tools that start children. */
type Group = PermissionKind | 'delegate';

const READ: Group[] = ['read'];
const EDIT: Group[] = ['edit'];
const RUN: Group[] = ['bash', 'test'];
const WEB: Group[] = ['webfetch'];
const DELEGATE: Group[] = ['delegate'];
/** Words other agents have for things Loupe has no tool for (todo lists, notebooks): known, and matching nothing. */
const NOTHING: Group[] = [];

// Each agent's own words for its tools (lower case), by what they do.
const CLAUDE: Record<string, Group[]> = {
  read: READ, glob: READ, grep: READ, ls: READ, notebookread: READ,
  write: EDIT, edit: EDIT, multiedit: EDIT, notebookedit: EDIT,
  bash: RUN, bashoutput: RUN, killshell: RUN, killbash: RUN,
  webfetch: WEB, websearch: WEB,
  task: DELEGATE, agent: DELEGATE,
  todowrite: NOTHING, todoread: NOTHING, exitplanmode: NOTHING, slashcommand: NOTHING, skill: NOTHING,
};
const GITHUB: Record<string, Group[]> = {
  read: READ, codebase: READ, readfile: READ, search: READ, grep: READ, glob: READ, findfiles: READ, textsearch: READ, filesearch: READ, usages: READ, problems: READ, changes: READ,
  edit: EDIT, editfiles: EDIT, createfile: EDIT, createdirectory: EDIT,
  execute: RUN, shell: RUN, runcommands: RUN, runinterminal: RUN, terminal: RUN, terminallastcommand: RUN, getterminaloutput: RUN, runtests: RUN, testfailure: RUN, runtasks: RUN,
  web: WEB, fetch: WEB, websearch: WEB,
  agent: DELEGATE, 'custom-agent': DELEGATE, runsubagent: DELEGATE,
  todo: NOTHING, todos: NOTHING, vscodeapi: NOTHING, extensions: NOTHING, new: NOTHING, opensimplebrowser: NOTHING,
};
const OPENCODE: Record<string, Group[]> = {
  read: READ, grep: READ, glob: READ, list: READ,
  write: EDIT, edit: EDIT, patch: EDIT, multiedit: EDIT,
  bash: RUN,
  webfetch: WEB, websearch: WEB,
  task: DELEGATE,
  todowrite: NOTHING, todoread: NOTHING, skill: NOTHING,
};
const WORDS: Record<DefinitionDialect, Record<string, Group[]>> = { loupe: CLAUDE, claude: CLAUDE, github: GITHUB, opencode: OPENCODE };

/** OpenCode's permission names for Loupe's kinds. */
const KIND_WORDS: Record<string, PermissionKind[]> = { edit: ['edit'], bash: ['bash', 'test'], shell: ['bash', 'test'], webfetch: ['webfetch'], read: ['read'], external_directory: ['external_directory'] };

/** A tool as far as matching needs it. */
export type ScopeTool = Pick<ToolFacts, 'name' | 'effect' | 'permission' | 'delegates'>;

type Matcher = (t: ScopeTool) => boolean;

interface Parsed {
  match: Matcher;
  /** Words that matched nothing this agent or Loupe knows (said on the card). */
  unknown: string[];
  /** `Agent(a, b)`: the types it may start itself. */
  agentTypes: string[] | null;
}

function wordMatcher(word: string, dialect: DefinitionDialect, known: ReadonlySet<string>): { match: Matcher | null; agentTypes?: string[] } {
  const w = word.trim();
  if (w === '*') return { match: () => true };
  const call = /^([A-Za-z_-]+)\s*\((.*)\)$/.exec(w);
  if (call && DELEGATE === (WORDS[dialect][call[1].toLowerCase()] ?? CLAUDE[call[1].toLowerCase()])) {
    return { match: (t) => !!t.delegates, agentTypes: call[2].split(',').map((s) => s.trim()).filter(Boolean) };
  }
  // Another agent's own word means what it means there ("bash" in OpenCode also runs its tests); Loupe's names, exactly.
  const own = dialect === 'loupe' ? undefined : WORDS[dialect][w.toLowerCase()];
  if (own) return { match: (t) => own.some((g) => (g === 'delegate' ? !!t.delegates : t.permission === g)) };
  if (known.has(w)) return { match: (t) => t.name === w };
  // MCP tools: Claude's mcp__server__tool, mcp__server (all of it), a trailing *; Copilot's server/tool and server/*.
  const slash = /^([\w.-]+)\/(\*|[\w.-]+)$/.exec(w);
  const mcp = w.startsWith('mcp__') ? w : slash && !GITHUB[slash[1].toLowerCase()] ? `mcp__${slash[1]}__${slash[2]}` : null;
  if (mcp) {
    if (mcp.endsWith('*')) return { match: (t) => t.name.startsWith(mcp.slice(0, -1)) };
    if (!mcp.slice(5).includes('__')) return { match: (t) => t.name.startsWith(`${mcp}__`) };
    const exact = mcp.replace(/[^A-Za-z0-9_-]/g, '_');
    return { match: (t) => t.name === exact };
  }
  if (w.endsWith('*') && w.length > 1) return { match: (t) => t.name.startsWith(w.slice(0, -1)) };
  // Copilot writes sets as "edit/editFiles": the set's own word decides.
  const head = slash ? slash[1] : w;
  const groups = WORDS[dialect][head.toLowerCase()] ?? (dialect === 'loupe' ? undefined : CLAUDE[head.toLowerCase()]);
  if (!groups) return { match: null };
  return { match: (t) => groups.some((g) => (g === 'delegate' ? !!t.delegates : t.permission === g)) };
}

function parseWords(words: string[], dialect: DefinitionDialect, known: ReadonlySet<string>): Parsed {
  const matchers: Matcher[] = [];
  const unknown: string[] = [];
  let agentTypes: string[] | null = null;
  for (const word of words) {
    const m = wordMatcher(word, dialect, known);
    if (!m.match) unknown.push(word);
    else matchers.push(m.match);
    if (m.agentTypes) agentTypes = [...(agentTypes ?? []), ...m.agentTypes];
  }
  return { match: (t) => matchers.some((m) => m(t)), unknown, agentTypes };
}

export interface ChildScope {
  /** The tools the child is offered and may call. */
  tools: Set<string>;
  /** The permission kinds those tools ask: no other question is put for the child. */
  kinds: Set<PermissionKind>;
  /** Plan mode's permission layer, whatever the tools: nothing that writes or runs a writer. */
  readOnly: boolean;
  /** The types it may start, when its definition names them (`Agent(a, b)`); null: any. */
  agentTypes: string[] | null;
  /** Words of its definition that name nothing here. */
  unknown: string[];
}

export interface ScopeInput {
  definition: AgentDefinition;
  /** The parent's tools as it holds them now (its own narrowing included). */
  parent: ScopeTool[];
  /** The tools the parent's gate lets run, when it is itself a child; null: any it is offered. */
  parentAllowed: ReadonlySet<string> | null;
  /** The parent's permission kinds, when it is itself a child; null: the workspace's rules, whole. */
  parentKinds: ReadonlySet<PermissionKind> | null;
  /** The parent only reads (plan mode, or a read-only child). */
  parentReadOnly: boolean;
  /** Depth allows the child children of its own. */
  canDelegate: boolean;
}

/** The child's tools and permissions: its definition's, within its parent's. */
export function childScope(input: ScopeInput): ChildScope {
  const d = input.definition;
  const known = new Set(input.parent.map((t) => t.name));
  const allow = d.tools === null ? null : parseWords(d.tools, d.dialect, known);
  const deny = parseWords(d.disallowedTools, d.dialect, known);
  const deniedKinds = new Set(d.deniedKinds.flatMap((k) => KIND_WORDS[k.toLowerCase()] ?? []));
  const readOnly = input.parentReadOnly || d.readOnly;
  // Tools that ask nothing and start nothing (the process list, the modification log) come with any list that names something.
  const quiet = (t: ScopeTool) => t.permission === null && !t.delegates;
  const tools = input.parent.filter((t) => {
    if (allow && !(allow.match(t) || (quiet(t) && d.tools!.length > 0))) return false;
    if (deny.match(t)) return false;
    if (t.permission && deniedKinds.has(t.permission)) return false;
    if (input.parentAllowed && !input.parentAllowed.has(t.name)) return false;
    if (t.permission && input.parentKinds && !input.parentKinds.has(t.permission)) return false;
    if (t.delegates && !input.canDelegate) return false;
    // A read-only child is not offered what plan mode refuses before it runs.
    if (readOnly && modeRefusal('plan', { name: t.name, effect: t.effect, asks: t.permission, delegates: t.delegates }) !== null) return false;
    return true;
  });
  const kinds = new Set(tools.flatMap((t) => (t.permission ? [t.permission] : [])));
  return {
    tools: new Set(tools.map((t) => t.name)),
    kinds,
    readOnly,
    agentTypes: allow?.agentTypes ?? null,
    unknown: [...(allow?.unknown ?? []), ...deny.unknown],
  };
}
