// A repository's hooks: `.loupe/config.json`'s `hooks`, and Claude Code's `.claude/settings.json`
// and `.claude/settings.local.json` read unchanged. The local file is "not committed" only by
// convention: a clone can carry it, so it is the repository's like the others.
import type { LoupeConfig } from './loupeConfig';
import { HOOK_SOURCES, NO_FILE_HOOKS, claudeFileHooks, fileHooks, type FileHooks, type HookEvent } from './hooksConfig';

export const CLAUDE_SETTINGS_REL = HOOK_SOURCES.claudeProject;
export const CLAUDE_LOCAL_REL = HOOK_SOURCES.claudeLocal;

/** One hook a trust prompt lists. */
export interface HookGrant {
  event: HookEvent;
  matcher: string;
  /** The command line or URL. */
  command: string;
  file: string;
}

/** The repository's hooks from its three files, in the order Claude Code reads them (shared, then local), Loupe's config last. */
export function projectHookFiles(config: Pick<LoupeConfig, 'hooks' | 'disableAllHooks'>, claude: Buffer | null, claudeLocal: Buffer | null, configText?: string): FileHooks {
  const parts: FileHooks[] = [
    claude ? claudeFileHooks(claude.toString('utf8'), HOOK_SOURCES.claudeProject, CLAUDE_SETTINGS_REL) : NO_FILE_HOOKS,
    claudeLocal ? claudeFileHooks(claudeLocal.toString('utf8'), HOOK_SOURCES.claudeLocal, CLAUDE_LOCAL_REL) : NO_FILE_HOOKS,
    fileHooks(config, HOOK_SOURCES.loupeProject, HOOK_SOURCES.loupeProject, configText),
  ];
  return {
    hooks: parts.flatMap((p) => p.hooks),
    disableAll: parts.some((p) => p.disableAll),
    httpUrls: [],
    problems: parts.flatMap((p) => p.problems),
  };
}
