import { LoupeError } from '../../errors';

export class WorktreeNotFoundError extends LoupeError {
  constructor(name: string) {
    super('WORKTREE_NOT_FOUND', `No Loupe worktree named ${JSON.stringify(name)}. \`loupe worktree list\` shows them; \`loupe run --worktree NAME\` makes one.`);
  }
}

/** Discard was confirmed against a report that no longer holds: something changed since it was shown. */
export class WorktreeChangedError extends LoupeError {
  constructor(name: string) {
    super('WORKTREE_CHANGED', `Worktree ${name} changed since its discard report was shown; nothing was removed. Look at the new report and confirm again.`);
  }
}

export interface ApplyConflict {
  file: string;
  why: string;
}

/** Applying a worktree's changes to the main folder would overwrite edits made there; nothing was written. */
export class ApplyConflictError extends LoupeError {
  constructor(
    name: string,
    readonly conflicts: ApplyConflict[],
  ) {
    super(
      'APPLY_CONFLICT',
      `Applying worktree ${name} to the main folder conflicts in ${conflicts.length} file${conflicts.length === 1 ? '' : 's'} (${conflicts.map((c) => `${c.file}: ${c.why}`).join('; ')}); nothing was changed. Resolve them in the main folder or in the worktree, then apply again.`,
      { conflicts: conflicts.map((c) => ({ ...c })) },
    );
  }
}
