import type { ErrorCode } from '../../shared/errors';
import type { ErrorDetails } from '../../shared/contract';

/** A host request that failed; `code` survives the transport so the UI can branch on it. */
export class HostRequestError extends Error {
  readonly code: ErrorCode;
  readonly channel: string;
  /** The host's structured facts about the error (e.g. ROLLBACK_CONFLICT's `blocking`). */
  readonly details: ErrorDetails | undefined;

  constructor(code: ErrorCode, message: string, channel: string, details?: ErrorDetails) {
    super(message);
    this.name = 'HostRequestError';
    this.code = code;
    this.channel = channel;
    this.details = details;
  }
}

/** The message worth showing a user for any rejection, host error or not. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
