// A custom slash command as found (docs/architecture.md, "Skills and commands"): a prompt file
// of one agent's dialect, with what its front matter says and how its arguments expand.
import type { Scope } from '../skills/types';

/**
 * Whose rules expand it: Claude Code's (`.claude/commands`, and Loupe's own `.loupe/commands`
 * and `<config dir>/commands`, which follow them), OpenCode's, Cursor's, VS Code's prompt files,
 * Gemini CLI's TOML commands, Codex's prompts.
 */
export type Dialect = 'claude' | 'opencode' | 'cursor' | 'vscode' | 'gemini' | 'codex';

/** A value a command asks for by name (VS Code's `${input:name}`, Codex's `$NAME`). */
export interface CommandInput {
  name: string;
  /** What to type, when the file says (`${input:name:placeholder}`). */
  placeholder?: string;
}

export interface CommandDef {
  /** Typed after the slash: `review`, `git:commit` (a subfolder), `team/review` (OpenCode's). */
  name: string;
  description: string;
  argumentHint?: string;
  /** `allowed-tools` as written, one entry per tool (null: the file does not say). */
  allowedTools: string[] | null;
  /** The model the file asks for (shown; the request uses the configured model). */
  model?: string;
  /** Claude Code's named arguments (`arguments: [issue, branch]` → `$issue`, `$branch`). */
  argumentNames: string[];
  dialect: Dialect;
  scope: Scope;
  /** The folder it was found in, as a person writes it: `.claude/commands`, `~/.codex/prompts`. */
  source: string;
  /** A real path. */
  file: string;
  /** Workspace-relative, for a repository's command. */
  rel?: string;
  /** Where it is as the person would find it: workspace-relative, or with ~ for their home. */
  shownPath: string;
  /** The prompt before expansion: the Markdown body, or the TOML's `prompt`. */
  template: string;
  /** Values it asks for by name. */
  inputs: CommandInput[];
  /** Every key of the front matter (or TOML), unknown ones included. */
  fields: Record<string, unknown>;
  problems: string[];
  /** The command of the same name used instead of this one, when this one is shadowed. */
  shadowedBy?: string;
  key: string;
}
