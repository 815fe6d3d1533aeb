// A test repository with hooks: the fixture scripts copied into its `.claude/hooks/`, and the
// settings that name them written where the test says (the repository's Claude Code files, or the
// person's).
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

export const HOOK_FIXTURES = path.resolve(__dirname, '../fixtures/hooks');

/** Copies the named fixture scripts into `<root>/.claude/hooks/` (executable, as a repository ships them). */
export async function installScripts(root: string, names: string[]): Promise<void> {
  await mkdir(path.join(root, '.claude', 'hooks'), { recursive: true });
  for (const n of names) await copyFile(path.join(HOOK_FIXTURES, n), path.join(root, '.claude', 'hooks', n));
}

export type Handler = { type: 'command'; command: string; timeout?: number; args?: string[] } | { type: 'http'; url: string; timeout?: number };
export type HooksDoc = Record<string, { matcher?: string; hooks: Handler[] }[]>;

/** Writes a Claude Code settings file (its other keys, which Loupe leaves alone, included). */
export async function writeClaudeSettings(file: string, hooks: HooksDoc, extra: Record<string, unknown> = {}): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, JSON.stringify({ permissions: { allow: ['Bash(npm test:*)'] }, ...extra, hooks }, null, 2));
}

/** The command line Claude Code's docs show for a project hook: the script under $CLAUDE_PROJECT_DIR. */
export const projectScript = (name: string, args = ''): string => `${name.endsWith('.py') ? 'python3 ' : ''}"$CLAUDE_PROJECT_DIR"/.claude/hooks/${name}${args ? ` ${args}` : ''}`;
