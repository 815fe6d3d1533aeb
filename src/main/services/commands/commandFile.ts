// One command file read as its dialect defines it: Markdown with optional YAML front matter
// (Claude Code, OpenCode, Cursor, VS Code, Codex), or Gemini CLI's TOML (`prompt`, `description`).
// Read leniently, like a skill: front matter that is not YAML is read line by line, a TOML file
// that does not parse has its `prompt` and `description` strings taken out by hand, and every
// departure is a problem the settings show, never a command dropped in silence.
import { createRequire } from 'node:module';
import type * as Toml from 'smol-toml';
import { rawLine, readFrontMatter } from '../skills/frontMatter';

// The TOML reader loads with the first Gemini command read, not with the folder.
const requireHere = createRequire(import.meta.url);
let tomlModule: typeof Toml | null = null;
const toml = (): typeof Toml => (tomlModule ??= requireHere('smol-toml') as typeof Toml);
import { toolEntries } from '../skills/skillFile';
import type { CommandInput, Dialect } from './types';

export interface CommandHeader {
  description: string;
  argumentHint?: string;
  allowedTools: string[] | null;
  model?: string;
  argumentNames: string[];
  /** VS Code's `name` (the command's name when it gives one). */
  name?: string;
  template: string;
  inputs: CommandInput[];
  fields: Record<string, unknown>;
  problems: string[];
}

const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined);

/** What a command says of itself when its file does not: its first line of text. */
function firstLine(body: string): string {
  const line = body
    .split('\n')
    .map((l) => l.replace(/^#+\s*/, '').replace(/[*_`]/g, '').trim())
    .find((l) => l && !l.startsWith('<!--'));
  return line ? (line.length > 100 ? `${line.slice(0, 99)}…` : line) : '';
}

/** VS Code's `${input:name}` and `${input:name:placeholder}`, in order, each name once. */
export function vscodeInputs(template: string): CommandInput[] {
  const seen = new Map<string, CommandInput>();
  for (const m of template.matchAll(/\$\{input:([A-Za-z_][\w-]*)(?::([^}]*))?\}/g)) if (!seen.has(m[1])) seen.set(m[1], { name: m[1], ...(m[2] ? { placeholder: m[2] } : {}) });
  return [...seen.values()];
}

/** Codex's named placeholders: `$NAME` in capitals (not `$ARGUMENTS`, not `$1`), each once. */
export function codexInputs(template: string): CommandInput[] {
  const names = new Set<string>();
  for (const m of template.replace(/\$\$/g, '').matchAll(/\$([A-Z][A-Z0-9_]*)/g)) if (m[1] !== 'ARGUMENTS') names.add(m[1]);
  return [...names].map((name) => ({ name }));
}

function argumentNames(v: unknown): string[] {
  if (Array.isArray(v)) return v.flatMap((x) => (typeof x === 'string' && x.trim() ? [x.trim()] : []));
  if (typeof v === 'string') return v.split(/[\s,]+/).filter(Boolean);
  return [];
}

export function parseCommandFile(source: string, dialect: Dialect, fileName: string): CommandHeader {
  if (dialect === 'gemini') return parseGemini(source, fileName);
  const fm = readFrontMatter(source);
  const d = fm.data;
  const problems = [...fm.problems];
  const template = fm.body.replace(/^\n+/, '').replace(/\s+$/, '');
  let description = (text(d.description) ?? '').trim();
  if (!description) description = firstLine(template);
  const inputs = dialect === 'vscode' ? vscodeInputs(template) : dialect === 'codex' ? codexInputs(template) : [];
  // Display text, as written: `[pr-number] [priority]` is no YAML list to its author.
  const hint = rawLine(source, 'argument-hint') ?? rawLine(source, 'argument_hint');
  const model = text(d.model);
  const name = dialect === 'vscode' ? text(d.name)?.trim() : undefined;
  if (!template.trim()) problems.push('it has no text to send');
  return {
    description,
    ...(hint ? { argumentHint: hint } : {}),
    allowedTools: toolEntries(d['allowed-tools']),
    ...(model ? { model } : {}),
    argumentNames: dialect === 'claude' ? argumentNames(d.arguments) : [],
    ...(name ? { name } : {}),
    template,
    inputs,
    fields: d,
    problems,
  };
}

/** A TOML string value by hand, for a file TOML refuses: `key = """…"""`, `'''…'''`, `"…"` or `'…'`. */
function tomlString(source: string, key: string): string | undefined {
  const at = new RegExp(`^\\s*${key}\\s*=\\s*`, 'm').exec(source);
  if (!at) return undefined;
  const rest = source.slice(at.index + at[0].length);
  for (const q of ['"""', "'''"]) {
    if (rest.startsWith(q)) {
      const end = rest.indexOf(q, q.length);
      return (end < 0 ? rest.slice(q.length) : rest.slice(q.length, end)).replace(/^\n/, '');
    }
  }
  const one = /^("((?:[^"\\\n]|\\.)*)"|'([^'\n]*)')/.exec(rest);
  if (!one) return undefined;
  if (one[3] !== undefined) return one[3];
  try {
    return JSON.parse(`"${one[2]}"`) as string;
  } catch {
    return one[2];
  }
}

function parseGemini(source: string, fileName: string): CommandHeader {
  const problems: string[] = [];
  let fields: Record<string, unknown>;
  try {
    fields = toml().parse(source.replace(/^\uFEFF/, '')) as Record<string, unknown>;
  } catch (err) {
    const first = (err as Error).message.split('\n')[0];
    problems.push(`it is not valid TOML (${first}), so its prompt and description were read by hand`);
    const prompt = tomlString(source, 'prompt');
    const description = tomlString(source, 'description');
    fields = { ...(prompt !== undefined ? { prompt } : {}), ...(description !== undefined ? { description } : {}) };
  }
  const template = typeof fields.prompt === 'string' ? fields.prompt : '';
  if (typeof fields.prompt !== 'string') problems.push('it has no "prompt" string, which Gemini CLI requires');
  const description = (text(fields.description) ?? '').trim() || `Custom command from ${fileName}`;
  return { description, allowedTools: null, argumentNames: [], template: template.replace(/\s+$/, ''), inputs: [], fields, problems };
}
