import { LoupeError } from '../../errors';
import { describeProblem, type ConfigProblem } from '../config/validate';

export { describeProblem };

export class PermissionDeniedError extends LoupeError {
  constructor(message: string) {
    super('PERMISSION_DENIED', message);
  }
}

/** The project config cannot be parsed, so Loupe will not rewrite it (it would lose the user's text). */
export class ConfigMalformedError extends LoupeError {
  constructor(readonly problem: ConfigProblem) {
    super('INVALID_ARGUMENT', `${describeProblem(problem)}. Fix the file; until then its rules are ignored and "allow always" cannot be saved.`);
  }
}
