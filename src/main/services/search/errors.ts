import { LoupeError } from '../../errors';

/** rg refused the query itself (bad regex, unknown --type, bad glob): the model can fix it. */
export class SearchQueryError extends LoupeError {
  constructor(detail: string) {
    super('INVALID_ARGUMENT', `ripgrep rejected the search: ${detail.trim()}. Fix the pattern, glob or type and search again.`);
  }
}

export class SearchTimeoutError extends LoupeError {
  constructor(ms: number) {
    super('TIMEOUT', `The search did not finish within ${Math.round(ms / 1000)} s. Narrow it with a path, glob or type.`);
  }
}

export class SearchFailedError extends LoupeError {
  constructor(detail: string) {
    super('FILE_READ_ERROR', `ripgrep failed: ${detail.trim() || 'no error message'}.`);
  }
}
