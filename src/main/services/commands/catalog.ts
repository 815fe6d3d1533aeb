// The custom slash commands in reach of one workspace (docs/architecture.md, "Skills and
// commands"): the prompt files people already wrote for other agents, each read in its own
// dialect. The repository's: `.loupe/commands`, `.claude/commands` (subfolders give `ns:name`),
// `.opencode/command(s)`, `.cursor/commands`, `.github/prompts/*.prompt.md`,
// `.gemini/commands/**/*.toml`. The person's: `<config dir>/commands`, `~/.claude/commands`,
// `~/.codex/prompts`, and the personal folders of OpenCode, Cursor and Gemini CLI. Looked for on
// every use; a file is parsed again only when it changed. A built-in name cannot be taken, and
// the person's own command wins over a repository's of the same name.
import path from 'node:path';
import { homeRelative, listDir, ParsedFiles, shown, statKey, whyUnread, type Place, type PlaceEntry, type PlaceProblem } from '../skills/places';
import type { Scope } from '../skills/types';
import { parseCommandFile, type CommandHeader } from './commandFile';
import type { CommandDef, Dialect } from './types';

interface Folder {
  dialect: Dialect;
  /** How a subfolder joins the name: `git:commit`, `team/review`; null: subfolders are not read. */
  nest: ':' | '/' | null;
  /** The file ending that makes a command (taken off for its name). */
  ext: string;
}

export const REPOSITORY_COMMAND_FOLDERS: (Folder & { rel: string })[] = [
  { rel: '.loupe/commands', dialect: 'claude', nest: ':', ext: '.md' },
  { rel: '.claude/commands', dialect: 'claude', nest: ':', ext: '.md' },
  { rel: '.opencode/commands', dialect: 'opencode', nest: '/', ext: '.md' },
  { rel: '.opencode/command', dialect: 'opencode', nest: '/', ext: '.md' },
  { rel: '.cursor/commands', dialect: 'cursor', nest: null, ext: '.md' },
  { rel: '.github/prompts', dialect: 'vscode', nest: null, ext: '.prompt.md' },
  { rel: '.gemini/commands', dialect: 'gemini', nest: ':', ext: '.toml' },
];

/** Subfolder levels read below a commands folder. */
const MAX_DEPTH = 3;
/** Command files read per folder, at most. */
const MAX_PER_PLACE = 2000;

export type CommandProblem = PlaceProblem;

export interface CommandSet {
  /** One per name: the person's before the repository's, then the first found. */
  commands: CommandDef[];
  shadowed: CommandDef[];
  problems: CommandProblem[];
}

export interface CommandCatalogOptions {
  /** Realpath of the workspace. */
  root: string;
  home: string;
  /** Loupe's config folder. */
  configDir: string;
  /** The read rules, once per listing: why a workspace path is kept from the agent, null when it is not. */
  readRules?: () => Promise<(rel: string) => string | null>;
  /** Names that are taken (the built-in commands). */
  reserved?: readonly string[];
}

type CommandPlace = Place & Folder;

export class CommandCatalog {
  private readonly parsed = new ParsedFiles<CommandHeader>();
  private inFlight: Promise<CommandSet> | null = null;

  constructor(private readonly opts: CommandCatalogOptions) {}

  places(refusal?: (rel: string) => string | null): CommandPlace[] {
    const { root, home, configDir } = this.opts;
    const personal = (abs: string, f: Folder): CommandPlace => ({ scope: 'personal', label: homeRelative(abs, home), abs, ...f });
    return [
      personal(path.join(configDir, 'commands'), { dialect: 'claude', nest: ':', ext: '.md' }),
      personal(path.join(home, '.claude', 'commands'), { dialect: 'claude', nest: ':', ext: '.md' }),
      personal(path.join(home, '.codex', 'prompts'), { dialect: 'codex', nest: null, ext: '.md' }),
      personal(path.join(home, '.config', 'opencode', 'commands'), { dialect: 'opencode', nest: '/', ext: '.md' }),
      personal(path.join(home, '.config', 'opencode', 'command'), { dialect: 'opencode', nest: '/', ext: '.md' }),
      personal(path.join(home, '.cursor', 'commands'), { dialect: 'cursor', nest: null, ext: '.md' }),
      personal(path.join(home, '.gemini', 'commands'), { dialect: 'gemini', nest: ':', ext: '.toml' }),
      ...REPOSITORY_COMMAND_FOLDERS.map(({ rel, ...f }): CommandPlace => ({ scope: 'repository', label: rel, abs: path.join(root, rel), root, ...(refusal ? { refusal } : {}), ...f })),
    ];
  }

  /** Every command in reach now. Concurrent callers share one look. */
  list(): Promise<CommandSet> {
    this.inFlight ??= this.look().finally(() => (this.inFlight = null));
    return this.inFlight;
  }

  async find(name: string): Promise<CommandDef | null> {
    return (await this.list()).commands.find((c) => c.name === name) ?? null;
  }

  private async look(): Promise<CommandSet> {
    const refusal = this.opts.readRules ? await this.opts.readRules() : undefined;
    const problems: CommandProblem[] = [];
    const found = await this.parsed.look(
      this.places(refusal),
      problems,
      (place, dir) => this.filesOf(place, dir, problems),
      (text, { place, entry }) => parseCommandFile(text, place.dialect, entry.name),
    );
    return arrange(
      found.map(({ place, entry, extra: parts, header }) => this.commandOf(place, entry, parts, header)),
      problems,
      this.opts.reserved ?? [],
    );
  }

  /** Command files of a place with the folder names leading to each, breadth first. */
  private async filesOf(place: CommandPlace, dir: string, problems: CommandProblem[]): Promise<{ entry: PlaceEntry; extra: string[] }[]> {
    const out: { entry: PlaceEntry; extra: string[] }[] = [];
    const queue: { dir: string; parts: string[] }[] = [{ dir, parts: [] }];
    const visited = new Set<string>([dir]);
    while (queue.length && out.length < MAX_PER_PLACE) {
      const at = queue.shift()!;
      const entries = await listDir(place, at.dir, (p, reason) => problems.push({ path: p, reason })).catch((err: unknown) => {
        problems.push({ path: shown(place, at.dir), reason: whyUnread(err) });
        return [] as PlaceEntry[];
      });
      for (const e of entries) {
        if (e.isDir) {
          if (place.nest && at.parts.length < MAX_DEPTH && !e.name.startsWith('.') && !visited.has(e.abs)) {
            visited.add(e.abs);
            queue.push({ dir: e.abs, parts: [...at.parts, e.name] });
          }
          continue;
        }
        if (e.name.endsWith(place.ext) && e.name.length > place.ext.length) out.push({ entry: e, extra: [...at.parts, e.name.slice(0, -place.ext.length)] });
      }
    }
    return out;
  }

  private commandOf(place: CommandPlace, entry: PlaceEntry, parts: string[], header: CommandHeader): CommandDef {
    const name = header.name ?? parts.join(place.nest ?? ':');
    return {
      name,
      description: header.description,
      ...(header.argumentHint ? { argumentHint: header.argumentHint } : {}),
      allowedTools: header.allowedTools,
      ...(header.model ? { model: header.model } : {}),
      argumentNames: header.argumentNames,
      dialect: place.dialect,
      scope: place.scope,
      source: place.label,
      file: entry.abs,
      ...(entry.rel !== undefined ? { rel: entry.rel } : {}),
      shownPath: entry.rel ?? homeRelative(entry.abs, this.opts.home),
      template: header.template,
      inputs: header.inputs,
      fields: header.fields,
      problems: [...header.problems],
      key: statKey(entry.st),
    };
  }
}

const RANK: Record<Scope, number> = { personal: 0, repository: 1 };

/** Where a command is, as the person would find it: workspace-relative or with ~. */
export const commandPath = (c: Pick<CommandDef, 'shownPath'>): string => c.shownPath;

function arrange(found: CommandDef[], problems: CommandProblem[], reserved: readonly string[]): CommandSet {
  const byName = new Map<string, CommandDef>();
  const shadowed: CommandDef[] = [];
  for (const { c } of found.map((c, i) => ({ c, i })).sort((a, b) => RANK[a.c.scope] - RANK[b.c.scope] || a.i - b.i)) {
    if (reserved.includes(c.name)) {
      c.shadowedBy = 'built-in';
      c.problems.push(`/${c.name} is a built-in command of Loupe, so this file is not used; rename it to use it`);
      shadowed.push(c);
      continue;
    }
    const winner = byName.get(c.name);
    if (!winner) {
      byName.set(c.name, c);
      continue;
    }
    c.shadowedBy = commandPath(winner);
    c.problems.push(
      winner.scope === 'personal' && c.scope === 'repository'
        ? `your own /${c.name} (${commandPath(winner)}) is used instead: a repository cannot replace a command of yours`
        : `/${c.name} in ${commandPath(winner)} was found first and is used instead`,
    );
    winner.problems.push(`a command of the same name in ${commandPath(c)} is not used (this one is)`);
    shadowed.push(c);
  }
  const commands = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { commands, shadowed, problems };
}
