import { LoupeError } from '../../errors';

export class ProtectedPathError extends LoupeError {
  constructor(rel: string) {
    super('INVALID_PATH', `${rel} is inside .git/ or .loupe/, which only git and Loupe may write. Choose a path in the project itself.`);
    this.forPerson = `${rel} is inside .git/ or .loupe/, which only git and Loupe may write; nothing was written.`;
  }
}

/** The file changed between the caller's read and the write (checked under the file's lock). */
export class ConcurrentChangeError extends LoupeError {
  constructor(readonly file: string) {
    super('FILE_CHANGED_SINCE_READ', `${file} changed on disk while the write was being prepared. Read it again, then retry.`);
    this.forPerson = `${file} changed on disk while the write was being prepared; nothing was written.`;
  }
}

/** A planned group rollback found a file changed between its preview and its start; nothing was written. */
export class PlanStaleError extends LoupeError {
  constructor(file: string) {
    super('FILE_CHANGED_SINCE_READ', `${file} changed since the preview was made; nothing was changed. Look at the preview again.`, { file });
  }
}

export class ModificationNotFoundError extends LoupeError {
  constructor(id: string) {
    super('MODIFICATION_NOT_FOUND', `No modification ${id} in this workspace's log. List them with modification_log.`);
    this.forPerson = `No modification ${id} in this workspace's log.`;
  }
}

/** The reversal overlaps later changes; `blocking` names the modifications in the way. */
export class RollbackConflictError extends LoupeError {
  constructor(
    readonly modificationId: string,
    readonly file: string,
    readonly blocking: string[],
    readonly outsideChanges: boolean,
    why: string,
  ) {
    const who = [
      ...(blocking.length ? [`later modification${blocking.length === 1 ? '' : 's'} ${blocking.join(', ')}`] : []),
      ...(outsideChanges ? ['edits made outside Loupe'] : []),
    ].join(' and ');
    super(
      'ROLLBACK_CONFLICT',
      `Rolling back ${modificationId} conflicts with ${who || 'the current content'} of ${file} (${why}). Nothing was changed. ` +
        (blocking.length ? 'Roll back the later modifications first (newest first), or edit the file by hand.' : 'Edit the file by hand instead.'),
      { modification_id: modificationId, file, blocking: [...blocking], outside_changes: outsideChanges },
    );
  }
}

export class AlreadyRolledBackError extends LoupeError {
  constructor(id: string, by: string) {
    super('INVALID_ARGUMENT', `${id} is already rolled back by ${by}. Roll back ${by} to apply it again.`);
  }
}

/** A checkpoint of the folded log pointed at a line that is not there; the next query folds the log itself. */
export class CheckpointMismatchError extends LoupeError {
  constructor(why: string) {
    super('INTERNAL', `The modification log's checkpoint did not match the log (${why}). Query again: the log is folded from the start.`);
  }
}
