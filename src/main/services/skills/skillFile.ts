// One SKILL.md as the Agent Skills specification defines it, read leniently: a missing name is
// the folder's, a description over the specification's 1,024 characters is cut (real skills run
// over: the agent still gets the first 1,024 and the person is told), fields the specification
// does not name are kept, and a problem is noted for each departure instead of dropping the skill.
import { readFrontMatter } from './frontMatter';

export const MAX_DESCRIPTION = 1024;
export const MAX_NAME = 64;
export const MAX_COMPATIBILITY = 500;

export interface SkillHeader {
  name: string;
  description: string;
  license?: string;
  compatibility?: string;
  metadata?: Record<string, unknown>;
  allowedTools: string[] | null;
  fields: Record<string, unknown>;
  body: string;
  problems: string[];
}

const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined);

/**
 * `allowed-tools` as entries: a YAML list, or one string split on spaces and commas outside
 * parentheses (`Bash(git add:*) Read` and Claude Code's `Bash(git add:*), Bash(git status:*)`).
 */
export function toolEntries(v: unknown): string[] | null {
  if (v === undefined || v === null) return null;
  if (Array.isArray(v)) return v.flatMap((e) => (typeof e === 'string' ? splitTools(e) : []));
  return typeof v === 'string' ? splitTools(v) : [];
}

export function splitTools(s: string): string[] {
  const out: string[] = [];
  let cur = '';
  let depth = 0;
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth = Math.max(0, depth - 1);
    if (depth === 0 && (ch === ',' || /\s/.test(ch))) {
      if (cur) out.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (cur) out.push(cur);
  return out;
}

export function parseSkillFile(source: string, folder: string): SkillHeader {
  const fm = readFrontMatter(source);
  const problems = [...fm.problems];
  const d = fm.data;
  let name = text(d.name)?.trim() ?? '';
  if (!name) {
    name = folder;
    problems.push(`it has no name, so it is called by its folder's, "${folder}"`);
  } else {
    if (name !== folder) problems.push(`its name "${name}" differs from its folder "${folder}" (the specification wants them equal); it is called "${name}"`);
    if (name.length > MAX_NAME || !/^[a-z0-9]+(-[a-z0-9]+)*$/.test(name)) problems.push(`its name "${name}" is not 1-${MAX_NAME} lowercase letters, digits and single hyphens, as the specification asks`);
  }
  let description = (text(d.description) ?? '').trim();
  if (d.description !== undefined && text(d.description) === undefined) problems.push('its description is not text, so it is left out');
  if (!description) problems.push('it has no description, so the agent sees only its name');
  if (description.length > MAX_DESCRIPTION) {
    problems.push(`its description is ${description.length.toLocaleString('en-US')} characters, over the specification's ${MAX_DESCRIPTION.toLocaleString('en-US')}; the agent sees the first ${MAX_DESCRIPTION.toLocaleString('en-US')}`);
    description = description.slice(0, MAX_DESCRIPTION);
  }
  const compatibility = text(d.compatibility);
  if (compatibility && compatibility.length > MAX_COMPATIBILITY) problems.push(`its compatibility note is ${compatibility.length} characters, over the specification's ${MAX_COMPATIBILITY}`);
  const metadata = d.metadata;
  const isMap = metadata !== null && typeof metadata === 'object' && !Array.isArray(metadata);
  if (metadata !== undefined && !isMap) problems.push('its metadata is not a map of keys to values, so it is kept only as written');
  const allowedTools = toolEntries(d['allowed-tools']);
  return {
    name,
    description,
    ...(text(d.license) ? { license: text(d.license) } : {}),
    ...(compatibility ? { compatibility } : {}),
    ...(isMap ? { metadata: metadata as Record<string, unknown> } : {}),
    allowedTools,
    fields: d,
    body: fm.body.replace(/^\n+/, ''),
    problems,
  };
}
