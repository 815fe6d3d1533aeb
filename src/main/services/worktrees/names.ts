// A worktree's name becomes a folder name and a branch name (`loupe/<name>`), both handed to git.
// So the name is checked once, here, against a small alphabet that can be neither a path step
// (`..`, `/`), nor an option (`-x`), nor a ref git refuses (`.lock`, `@{`, `..`): see
// docs/security.md, "Worktrees".
import path from 'node:path';
import { InvalidArgumentError } from '../../errors';

export const BRANCH_PREFIX = 'loupe/';
const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*$/;
export const MAX_NAME = 64;

/** The name as given, or InvalidArgumentError saying what a name may hold. */
export function checkName(name: string): string {
  if (typeof name !== 'string' || name.length === 0 || name.length > MAX_NAME || !NAME.test(name) || name.toLowerCase().endsWith('.lock')) {
    throw new InvalidArgumentError(
      `Invalid worktree name ${JSON.stringify(String(name).slice(0, 80))}: use 1-${MAX_NAME} letters, digits, '-', '_' and single dots inside, starting with a letter or digit (e.g. fix-login).`,
    );
  }
  return name;
}

export const branchOf = (name: string): string => `${BRANCH_PREFIX}${checkName(name)}`;

/** The worktree's folder: always a direct child of `folder`. */
export function worktreePath(folder: string, name: string): string {
  const abs = path.join(folder, checkName(name));
  // The alphabet already rules out every escape; this says so again where the path is made.
  if (path.dirname(abs) !== path.resolve(folder)) throw new InvalidArgumentError(`Invalid worktree name ${JSON.stringify(name)}`);
  return abs;
}
