import { LoupeError } from '../../errors';

export class ProtectedPathError extends LoupeError {
  constructor(rel: string) {
    super('INVALID_PATH', `${rel} is inside .git/ or .loupe/, which only git and Loupe may write. Choose a path in the project itself.`);
  }
}

/** The file changed between the caller's read and the write (checked under the file's lock). */
export class ConcurrentChangeError extends LoupeError {
  constructor(rel: string) {
    super('FILE_CHANGED_SINCE_READ', `${rel} changed on disk while the write was being prepared. Read it again, then retry.`);
  }
}
