// The skills in reach of one workspace (docs/architecture.md, "Skills and commands"): the
// repository's `.agents/skills`, `.claude/skills`, `.github/skills`, `.opencode/skills` and the
// person's `<config dir>/skills`, `~/.agents/skills`, `~/.claude/skills`, each `*/SKILL.md`.
// Looked for on every use (a folder listing and a stat per skill; a file is parsed again only when
// it changed), so a skill added or edited applies at once. When two share a name the person's
// own wins, whatever the repository says: a clone must not replace a skill the person relies on.
import path from 'node:path';
import { toPosix } from '../workspace/pathGuard';
import { entryAt, homeRelative, listDir, ParsedFiles, readPlaceFile, statKey, type Place, type PlaceEntry, type PlaceProblem } from './places';
import { parseSkillFile, type SkillHeader } from './skillFile';
import type { Scope, Skill } from './types';

export const REPOSITORY_SKILL_FOLDERS = ['.agents/skills', '.claude/skills', '.github/skills', '.opencode/skills'];
/** Skill folders read per skills folder, at most. */
const MAX_SKILLS_PER_PLACE = 1000;
/** Files a skill's listing shows, at most. */
export const MAX_LISTED_FILES = 200;
const SKIP_IN_LISTING = new Set(['.git', 'node_modules']);

export type SkillProblem = PlaceProblem;

export interface SkillSet {
  /** One per name, the one in use: the person's before the repository's, then the first found. */
  skills: Skill[];
  /** Skills another of the same name shadows (each says by which). */
  shadowed: Skill[];
  /** Folders and files that could not be read. */
  problems: SkillProblem[];
}

export interface SkillCatalogOptions {
  /** Realpath of the workspace. */
  root: string;
  /** The person's home folder (HOME). */
  home: string;
  /** Loupe's config folder (settings.json's). */
  configDir: string;
  /** The read rules, once per listing: why a workspace path is kept from the agent, null when it is not. */
  readRules?: () => Promise<(rel: string) => string | null>;
}

export interface LoadedSkill {
  skill: Skill;
  /** SKILL.md without its front matter. */
  body: string;
  /** The skill's files, relative to its folder (SKILL.md first), at most MAX_LISTED_FILES. */
  files: string[];
  /** More files than were listed. */
  more: number;
}

export class SkillCatalog {
  private readonly parsed = new ParsedFiles<SkillHeader>();
  private inFlight: Promise<SkillSet> | null = null;

  constructor(private readonly opts: SkillCatalogOptions) {}

  /** The places looked in, the person's first. */
  places(refusal?: (rel: string) => string | null): Place[] {
    const { root, home, configDir } = this.opts;
    const personal = (abs: string): Place => ({ scope: 'personal', label: homeRelative(abs, home), abs });
    return [
      personal(path.join(configDir, 'skills')),
      personal(path.join(home, '.agents', 'skills')),
      personal(path.join(home, '.claude', 'skills')),
      ...REPOSITORY_SKILL_FOLDERS.map((rel): Place => ({ scope: 'repository', label: rel, abs: path.join(root, rel), root, ...(refusal ? { refusal } : {}) })),
    ];
  }

  /** Every skill in reach now. Concurrent callers share one look. */
  list(): Promise<SkillSet> {
    this.inFlight ??= this.look().finally(() => (this.inFlight = null));
    return this.inFlight;
  }

  /** The skill in use under this name (exact, else ignoring case), or null. */
  async find(name: string): Promise<Skill | null> {
    const { skills } = await this.list();
    return skills.find((s) => s.name === name) ?? skills.find((s) => s.name.toLowerCase() === name.toLowerCase()) ?? null;
  }

  /**
   * The person's skill whose folder holds this real path (a file outside the workspace the agent
   * may read without asking), or null. A repository's skills are inside the workspace already.
   */
  async personalFolderOf(real: string): Promise<Skill | null> {
    const { skills, shadowed } = await this.list();
    return [...skills, ...shadowed].find((s) => s.scope === 'personal' && (real === s.dir || real.startsWith(`${s.dir}${path.sep}`))) ?? null;
  }

  /** The skill's body read now, and the list of its files. */
  async load(skill: Skill): Promise<LoadedSkill> {
    const place = this.placeOf(skill, this.opts.readRules ? await this.opts.readRules() : undefined);
    const read = await readPlaceFile(place, { abs: skill.file, ...(skill.rel !== undefined ? { rel: `${skill.rel}/SKILL.md` } : {}) });
    const header = parseSkillFile(read.text, path.basename(skill.dir));
    const { files, more } = await this.files(skill, place);
    return { skill, body: header.body, files, more };
  }

  private placeOf(skill: Skill, refusal?: (rel: string) => string | null): Place {
    return skill.scope === 'repository' ? { scope: 'repository', label: skill.source, abs: skill.dir, root: this.opts.root, ...(refusal ? { refusal } : {}) } : { scope: 'personal', label: skill.source, abs: skill.dir };
  }

  /** The skill's files, breadth first, its own folder only (links that leave it are not followed). */
  private async files(skill: Skill, place: Place): Promise<{ files: string[]; more: number }> {
    const files: string[] = [];
    let more = 0;
    const queue: string[] = [skill.dir];
    while (queue.length) {
      const dir = queue.shift()!;
      const entries = await listDir(place, dir, () => undefined).catch(() => [] as PlaceEntry[]);
      for (const e of entries) {
        if (!(e.abs === skill.dir || e.abs.startsWith(`${skill.dir}${path.sep}`))) continue;
        if (e.isDir) {
          if (!SKIP_IN_LISTING.has(e.name) && queue.length < 200) queue.push(e.abs);
          continue;
        }
        const rel = toPosix(path.relative(skill.dir, e.abs));
        if (files.length < MAX_LISTED_FILES) files.push(rel);
        else more++;
      }
    }
    files.sort((a, b) => (a === 'SKILL.md' ? -1 : b === 'SKILL.md' ? 1 : a < b ? -1 : a > b ? 1 : 0));
    return { files, more };
  }

  private async look(): Promise<SkillSet> {
    const refusal = this.opts.readRules ? await this.opts.readRules() : undefined;
    const problems: SkillProblem[] = [];
    const report = (p: string, reason: string) => problems.push({ path: p, reason });
    const found = await this.parsed.look(
      this.places(refusal),
      problems,
      async (place, dir) => {
        const out: { entry: PlaceEntry; extra: PlaceEntry }[] = [];
        for (const folder of (await listDir(place, dir, report)).filter((e) => e.isDir).slice(0, MAX_SKILLS_PER_PLACE)) {
          const entry = await entryAt(place, folder.abs, 'SKILL.md', report).catch(() => null);
          if (entry && !entry.isDir) out.push({ entry, extra: folder });
        }
        return out;
      },
      (text, { extra: folder }) => parseSkillFile(text, folder.name),
    );
    return arrange(
      found.map(({ place, entry, extra: folder, header }) => this.skillOf(place, folder, entry, header)),
      problems,
    );
  }

  private skillOf(place: Place, folder: PlaceEntry, entry: PlaceEntry, header: SkillHeader): Skill {
    return {
      name: header.name,
      description: header.description,
      scope: place.scope,
      source: place.label,
      dir: folder.abs,
      file: entry.abs,
      ...(folder.rel !== undefined ? { rel: folder.rel } : {}),
      shownDir: folder.rel ?? homeRelative(folder.abs, this.opts.home),
      ...(header.license ? { license: header.license } : {}),
      ...(header.compatibility ? { compatibility: header.compatibility } : {}),
      ...(header.metadata ? { metadata: header.metadata } : {}),
      personOnly: flag(header.fields['disable-model-invocation']) === true,
      agentOnly: flag(header.fields['user-invocable']) === false,
      allowedTools: header.allowedTools,
      fields: header.fields,
      problems: [...header.problems],
      key: statKey(entry.st),
    };
  }
}

const RANK: Record<Scope, number> = { personal: 0, repository: 1 };

/** A YAML boolean, or the text of one when the front matter was read line by line. */
const flag = (v: unknown): boolean | undefined => (typeof v === 'boolean' ? v : v === 'true' ? true : v === 'false' ? false : undefined);

/** One skill per name: the person's first, then in the order the places were looked in. */
function arrange(found: Skill[], problems: SkillProblem[]): SkillSet {
  const byName = new Map<string, Skill>();
  const shadowed: Skill[] = [];
  const ordered = found.map((s, i) => ({ s, i })).sort((a, b) => RANK[a.s.scope] - RANK[b.s.scope] || a.i - b.i);
  for (const { s } of ordered) {
    const key = s.name.toLowerCase();
    const winner = byName.get(key);
    if (!winner) {
      byName.set(key, s);
      continue;
    }
    const where = (x: Skill) => `${x.scope === 'personal' ? 'your own' : "the repository's"} skill in ${x.source}`;
    s.shadowedBy = winner.shownDir;
    s.problems.push(
      winner.scope === 'personal' && s.scope === 'repository'
        ? `${where(winner)} has the same name and is used instead: a repository cannot replace a skill of yours`
        : `${where(winner)} has the same name and was found first, so it is used instead`,
    );
    winner.problems.push(`a skill of the same name in ${s.source} is not used (this one is)`);
    shadowed.push(s);
  }
  const skills = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { skills, shadowed, problems };
}
