// `allowed-tools` as Claude Code writes them (the Agent Skills specification leaves the names to
// each agent), turned into Loupe's allow rules: `Bash(git add:*)` is the bash rule `git add *`,
// `Bash` and `Bash(*)` allow any command, `Read`/`Grep`/`Glob`/`LS` reads, `Edit`/`Write`/
// `MultiEdit` edits (a pattern in parentheses narrows each), `WebFetch(domain:x)` fetches from x,
// `mcp__server__tool` that MCP tool. Loupe's own tool names are read the same way. Anything else
// (Task, TodoWrite, …) names a tool Loupe does not have and becomes no rule. Only allow rules come
// out: never a deny, an ask, a network grant or a way out of the sandbox.
import { createHash } from 'node:crypto';
import type { PermissionRule } from '../permissions/types';

export interface MappedTools {
  rules: PermissionRule[];
  /** Entries that name no tool Loupe has. */
  ignored: string[];
}

const KINDS: Record<string, 'bash' | 'read' | 'edit' | 'webfetch'> = {
  bash: 'bash',
  read: 'read',
  read_file: 'read',
  grep: 'read',
  glob: 'read',
  ls: 'read',
  list_files: 'read',
  code_search: 'read',
  notebookread: 'read',
  edit: 'edit',
  write: 'edit',
  multiedit: 'edit',
  notebookedit: 'edit',
  edit_file: 'edit',
  write_file: 'edit',
  code_modify: 'edit',
  webfetch: 'webfetch',
};

/** `Tool` or `Tool(spec)`. */
const ENTRY = /^([A-Za-z_][A-Za-z0-9_-]*)(?:\((.*)\))?$/s;

function bashPattern(spec: string | undefined): string {
  const s = (spec ?? '').trim();
  if (!s || s === '*' || s === ':*') return '*';
  // Claude Code's `prefix:*` is a command prefix: `git add:*` allows `git add` and `git add …`.
  if (s.endsWith(':*')) return `${s.slice(0, -2).trimEnd()} *`;
  return s;
}

function pathPattern(spec: string | undefined): string {
  const s = (spec ?? '').trim();
  // Claude Code writes `//abs` for an absolute path and `./x` for one relative to the project.
  if (!s || s === '*') return '**';
  return s.replace(/^\/\//, '/').replace(/^\.\//, '');
}

function urlPatterns(spec: string | undefined): string[] {
  const s = (spec ?? '').trim();
  if (!s || s === '*') return ['*'];
  const domain = /^domain:(.+)$/.exec(s)?.[1]?.trim();
  if (domain) return [`https://${domain}/*`, `http://${domain}/*`];
  return [s];
}

export function rulesOfAllowedTools(entries: readonly string[]): MappedTools {
  const rules: PermissionRule[] = [];
  const ignored: string[] = [];
  for (const raw of entries) {
    const entry = raw.trim();
    if (!entry) continue;
    const mcp = /^mcp__([^_](?:[^_]|_(?!_))*)(?:__(.+))?$/.exec(entry);
    if (mcp) {
      rules.push({ kind: 'mcp', pattern: `${mcp[1]}/${mcp[2] ?? '*'}`, action: 'allow' });
      continue;
    }
    const m = ENTRY.exec(entry);
    const kind = m ? KINDS[m[1].toLowerCase()] : undefined;
    if (!m || !kind) {
      ignored.push(entry);
      continue;
    }
    if (kind === 'bash') rules.push({ kind, pattern: bashPattern(m[2]), action: 'allow' });
    else if (kind === 'webfetch') for (const pattern of urlPatterns(m[2])) rules.push({ kind, pattern, action: 'allow' });
    else rules.push({ kind, pattern: pathPattern(m[2]), action: 'allow' });
  }
  const seen = new Set<string>();
  return { rules: rules.filter((r) => !seen.has(`${r.kind}\0${r.pattern}`) && seen.add(`${r.kind}\0${r.pattern}`)), ignored };
}

/** Names one exact list of one file: an "always" answer holds until either changes. */
export function grantDigest(where: string, entries: readonly string[]): string {
  return createHash('sha256').update(`${where}\0${entries.join('\0')}`).digest('hex');
}
