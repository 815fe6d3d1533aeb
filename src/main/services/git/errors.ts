import { LoupeError } from '../../errors';

/** git ran and failed; the message carries its own words (stderr), which callers may match. */
export class GitCommandError extends LoupeError {
  constructor(
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super('INTERNAL', `git ${args[0] ?? ''} failed (exit ${exitCode ?? 'signal'}): ${stderr.trim() || 'no message'}. Check the repository with \`git status\`.`);
  }
}

/** git did not finish in time; a hung filter or lock is the usual cause. */
export class GitTimeoutError extends LoupeError {
  constructor(args: readonly string[], ms: number) {
    super('TIMEOUT', `git ${args[0] ?? ''} did not finish within ${Math.round(ms / 1000)} s. Check for a stale .git/index.lock and retry.`);
  }
}
