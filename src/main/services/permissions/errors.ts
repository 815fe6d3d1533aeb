import { LoupeError } from '../../errors';
import { describeProblem, type ConfigProblem } from '../config/validate';

export { describeProblem };

/**
 * Who said no: a rule, the built-in default, the person, nobody being there to ask, the mode
 * (plan mode only reads), a PreToolUse hook, or a subagent's scope (a tool or kind its definition
 * and parent do not give it).
 */
export type DeniedBy = 'rule' | 'default' | 'user' | 'unattended' | 'mode' | 'hook' | 'agent';

export class PermissionDeniedError extends LoupeError {
  constructor(message: string, details: { denied_by: DeniedBy; message?: string; rule?: string; hook?: string; source?: string } = { denied_by: 'default' }) {
    super('PERMISSION_DENIED', message, details);
  }
}

/** The project config cannot be parsed, so Loupe will not rewrite it (it would lose the user's text). */
export class ConfigMalformedError extends LoupeError {
  constructor(readonly problem: ConfigProblem) {
    super('INVALID_ARGUMENT', `${describeProblem(problem)}. Fix the file; until then its rules are ignored and "allow always" cannot be saved.`);
  }
}
