import type { ErrorCode } from '../../shared/errors';

/** A host request that failed; `code` survives the transport so the UI can branch on it. */
export class HostRequestError extends Error {
  readonly code: ErrorCode;
  readonly channel: string;

  constructor(code: ErrorCode, message: string, channel: string) {
    super(message);
    this.name = 'HostRequestError';
    this.code = code;
    this.channel = channel;
  }
}

/** The message worth showing a user for any rejection, host error or not. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
