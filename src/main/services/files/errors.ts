// File errors shared by every tool that reads or writes. Messages say what to do next.
import { LoupeError } from '../../errors';

export class FileTooLargeError extends LoupeError {
  constructor(rel: string, size: number, max: number) {
    super('FILE_TOO_LARGE', `${rel} is ${size} bytes, over the ${max}-byte limit. Search it with grep instead of reading it whole.`);
    this.forPerson = `${rel} is ${size} bytes, over the ${max}-byte limit, so it is not read whole.`;
  }
}

export class BinaryFileError extends LoupeError {
  constructor(rel: string, why = 'is a binary file') {
    super('BINARY_FILE', `${rel} ${why}; it cannot be shown or edited as text.`);
  }
}

export class NotAFileError extends LoupeError {
  constructor(rel: string, what = 'a folder') {
    super('INVALID_PATH', `${rel || '.'} is ${what}, not a file. List it with list_files, or pass a file path.`);
    this.forPerson = `${rel || '.'} is ${what}, not a file.`;
  }
}

export class FileReadError extends LoupeError {
  constructor(rel: string, cause: string) {
    super('FILE_READ_ERROR', `Could not read ${rel}: ${cause}. Check its permissions.`);
  }
}

export class FileNotReadError extends LoupeError {
  constructor(rel: string) {
    super('FILE_NOT_READ', `${rel} has not been read in this session. Call read_file on it first, then retry.`);
    this.forPerson = `The agent had not read ${rel} in this session, so it may not change it yet; nothing was written.`;
  }
}

export class FileChangedSinceReadError extends LoupeError {
  /** `by`: who changed it, when Loupe knows (the person's saves in the editor). */
  constructor(rel: string, snippet?: string, by?: string) {
    super(
      'FILE_CHANGED_SINCE_READ',
      `${rel} changed on disk since you last read it${by ? ` (${by})` : ''}. ` +
        (snippet ? `Its current content around the target:\n${snippet}\nBase the retry on this text.` : 'Read it again before writing.'),
    );
    this.forPerson = `${rel} changed on disk since the agent read it; nothing was written.`;
  }
}

/**
 * A path Loupe was about to open goes through a symbolic link it must not follow (its own
 * state under .loupe/ or .git/, or a folder swapped for a link while it was being opened).
 */
export class UnsafePathError extends LoupeError {
  constructor(
    readonly rel: string,
    why: string,
  ) {
    super(
      'UNSAFE_PATH',
      `${rel || '.'} ${why}. Loupe opens files only through real folders inside the workspace and never follows a symbolic link ` +
        `in the files it keeps for itself. Put a real folder or file in its place (or remove it), then try again.`,
    );
  }
}
