import type { GitBadge } from '../../shared/contract';

// A hint of colour per file family, as editor icon themes do, so the eye finds files by type.
const FAMILY: Record<string, string> = {
  ts: '#4d9bf0', tsx: '#4d9bf0', mts: '#4d9bf0', cts: '#4d9bf0',
  js: '#e8d06a', jsx: '#e8d06a', mjs: '#e8d06a', cjs: '#e8d06a',
  json: '#d6a552', jsonc: '#d6a552', yaml: '#c27bd8', yml: '#c27bd8', toml: '#c27bd8',
  md: '#7fb0d8', markdown: '#7fb0d8', txt: '#9aa1ad',
  py: '#6fb3e0', rs: '#dd8a5f', go: '#5ccfe6', java: '#e07b53', rb: '#e0605a', php: '#9d8fe0',
  c: '#7b9fd6', h: '#7b9fd6', cpp: '#7b9fd6', hpp: '#7b9fd6', cs: '#8fc067',
  css: '#b57edc', scss: '#e072a4', less: '#7e8fd6', html: '#e8825a', svg: '#e8b15a', xml: '#e8825a',
  sh: '#8fc067', bash: '#8fc067', zsh: '#8fc067', lock: '#8a909b',
};

export function fileColor(name: string): string | undefined {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? FAMILY[name.slice(dot + 1).toLowerCase()] : undefined;
}

export const GIT_LABEL: Record<GitBadge, string> = {
  M: 'Modified',
  A: 'Added',
  D: 'Deleted',
  R: 'Renamed',
  C: 'Copied',
  U: 'Conflict',
  '?': 'Untracked',
  '!': 'Ignored',
};

/** CSS class suffix per badge; '?' and '!' are not valid in class names. */
export const GIT_CLASS: Record<GitBadge, string> = {
  M: 'modified',
  A: 'added',
  D: 'deleted',
  R: 'renamed',
  C: 'added',
  U: 'conflict',
  '?': 'untracked',
  '!': 'ignored',
};

/**
 * The letter drawn in the row, following VS Code's convention rather than git's raw codes:
 * untracked reads 'U', a conflict '!', and ignored files are only dimmed. The raw badge
 * stays available on the row as data-git.
 */
export const GIT_LETTER: Record<GitBadge, string> = { M: 'M', A: 'A', D: 'D', R: 'R', C: 'C', U: '!', '?': 'U', '!': '' };
