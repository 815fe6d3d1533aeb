import { LoupeError } from '../../errors';
import type { ConfigProblem } from './projectConfig';

export class PermissionDeniedError extends LoupeError {
  constructor(message: string) {
    super('PERMISSION_DENIED', message);
  }
}

export function describeProblem(p: ConfigProblem): string {
  return `${p.file}${p.line !== null ? `:${p.line}:${p.column}` : ''}: ${p.message}`;
}

/** The project config cannot be parsed, so Loupe will not rewrite it (it would lose the user's text). */
export class ConfigMalformedError extends LoupeError {
  constructor(readonly problem: ConfigProblem) {
    super('INVALID_ARGUMENT', `${describeProblem(problem)}. Fix the file; until then its rules are ignored and "allow always" cannot be saved.`);
  }
}
