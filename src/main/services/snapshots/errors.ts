import { LoupeError } from '../../errors';

/** A snapshot of the work tree could not be taken or read; the command's writes go unrecorded, and say so. */
export class SnapshotError extends LoupeError {
  constructor(why: string) {
    super('INTERNAL', `Could not snapshot the workspace (${why}); what the command wrote is not recorded as modifications.`);
  }
}
