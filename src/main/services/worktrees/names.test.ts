// Worktree names are a security class (docs/security.md, "Worktrees"): whatever a name holds, it
// either is refused with INVALID_ARGUMENT or names a direct child of the worktrees folder and a
// branch git accepts, that no git command reads as an option.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LoupeError } from '../../errors';
import { branchOf, checkName, worktreePath } from './names';

const FOLDER = '/home/p/repo.loupe-worktrees';

/** Strings built from the pieces that break paths, refs and command lines. */
const hostile = fc
  .array(fc.constantFrom('..', '.', '/', '\\', '-', '--', '-b', '@{', '~', '^', ':', '?', '*', '[', ' ', '\n', '\0', '.lock', 'a', 'Z', '9', '_', 'é', '%2e', 'HEAD', '$(x)', '`'), { maxLength: 8 })
  .map((parts) => parts.join(''));
const names = fc.oneof(hostile, fc.string({ maxLength: 80 }), fc.stringMatching(/^[A-Za-z0-9._-]{1,70}$/));

function accepted(name: string): boolean {
  try {
    checkName(name);
    return true;
  } catch (err) {
    expect((err as LoupeError).code).toBe('INVALID_ARGUMENT');
    return false;
  }
}

describe('worktree names', () => {
  it('an accepted name never leaves the folder, never starts an option, and is a branch git takes', () => {
    const seen: string[] = [];
    fc.assert(
      fc.property(names, (name) => {
        if (!accepted(name)) return;
        const abs = worktreePath(FOLDER, name);
        expect(path.dirname(abs)).toBe(FOLDER);
        expect(path.basename(abs)).toBe(name);
        expect(name.startsWith('-')).toBe(false);
        expect(name).not.toMatch(/[\s/\\:~^?*[\0]|\.\.|@\{/);
        seen.push(branchOf(name));
      }),
      { numRuns: 2000, seed: 28 },
    );
    expect(seen.length).toBeGreaterThan(100);
    // git's own judgement, once for a sample of the accepted names.
    for (const b of seen.slice(0, 40)) expect(() => execFileSync('git', ['check-ref-format', '--branch', b], { stdio: 'pipe' })).not.toThrow();
  });

  it('refuses the classic escapes with a clear message', () => {
    for (const bad of ['', '..', '../x', 'a/b', '-b', '--force', '.hidden', 'x.lock', 'a..b', 'a b', 'x@{1}', 'é', 'a'.repeat(65), 'ends.']) {
      expect(() => checkName(bad), bad).toThrow(/Invalid worktree name/);
    }
  });

});
