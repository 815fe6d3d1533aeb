// What a skill is once found (docs/architecture.md, "Skills and commands"). The contract's
// SkillView is what crosses a wire; this is what the services and the agent hold.

/** `personal`: the person's own folders; `repository`: the open folder's, which came with it. */
export type Scope = 'personal' | 'repository';

export interface Skill {
  /** The front matter's name, else the folder's. */
  name: string;
  /** As the agent sees it: cut to the specification's 1,024 characters when longer (a problem says so). */
  description: string;
  scope: Scope;
  /** The skills folder it was found in, as a person would write it: `.claude/skills`, `~/.agents/skills`. */
  source: string;
  /** The skill's folder, a real path (its files are the agent's to read). */
  dir: string;
  /** SKILL.md, a real path. */
  file: string;
  /** Workspace-relative folder for a repository's skill (its files are reached through the workspace). */
  rel?: string;
  /** Its folder as the person would find it: workspace-relative, or with ~ for their home. */
  shownDir: string;
  license?: string;
  compatibility?: string;
  metadata?: Record<string, unknown>;
  /** Claude Code's `disable-model-invocation: true`: only the person calls it (`/name`); the agent is not told of it. */
  personOnly: boolean;
  /** Claude Code's `user-invocable: false`: the agent's only; not offered in the `/` list. */
  agentOnly: boolean;
  /** `allowed-tools` as written, one entry per tool (null: the file does not say). */
  allowedTools: string[] | null;
  /** Every key of the front matter, unknown ones included. */
  fields: Record<string, unknown>;
  /** What is off about it, each in a sentence: a cut description, YAML read line by line, a shadowing. */
  problems: string[];
  /** The skill of the same name that is used instead of this one, when this one is shadowed. */
  shadowedBy?: string;
  /** dev:ino:size:mtime:ctime of SKILL.md when it was read. */
  key: string;
}
