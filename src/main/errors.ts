// Small named errors carrying one error code (src/shared/errors.ts). Messages say what to do next.
import type { ErrorCode } from '../shared/errors';
import type { ErrorDetails, WireError } from '../shared/contract';

export class LoupeError extends Error {
  /**
   * The message for the person, where `message` also tells the model what to do next in its own
   * terms (a tool to call, an argument to change). Set by errors whose message does.
   */
  forPerson?: string;

  constructor(
    readonly code: ErrorCode,
    message: string,
    /** What a program needs to act on the error without reading the message (plain JSON). */
    readonly details?: ErrorDetails,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * An error whose message is a fact and then advice for the model: the model reads both, the
 * person the fact alone (`forPerson`).
 */
export function advised<E extends LoupeError>(err: E, fact: string): E {
  err.forPerson = fact;
  return err;
}

export class InvalidArgumentError extends LoupeError {
  constructor(message: string) {
    super('INVALID_ARGUMENT', message);
  }
}

export class NoWorkspaceError extends LoupeError {
  constructor() {
    super('NO_WORKSPACE', 'No folder is open. Open a folder first.');
  }
}

export class FileNotFoundError extends LoupeError {
  constructor(path: string) {
    super('FILE_NOT_FOUND', `File not found: ${path}. Check the path, or list the folder to see what exists.`);
  }
}

export class PathOutsideWorkspaceError extends LoupeError {
  constructor(path: string) {
    super('PATH_OUTSIDE_WORKSPACE', `Path is outside the workspace: ${path}. Use a path inside the open folder.`);
  }
}

export class AbortedError extends LoupeError {
  constructor(what = 'The operation') {
    super('ABORTED', `${what} was cancelled.`);
  }
}

/** Turns anything thrown into what a transport may send: a code, a message and its details, no stack. */
export function toWireError(err: unknown): WireError {
  if (err instanceof LoupeError) return { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}), ...(err.forPerson !== undefined ? { for_person: err.forPerson } : {}) };
  const e = err as NodeJS.ErrnoException | undefined;
  if (e?.code === 'ENOENT') return { code: 'FILE_NOT_FOUND', message: e.message };
  if (e?.code === 'EACCES' || e?.code === 'EPERM') return { code: 'FILE_READ_ERROR', message: e.message };
  return { code: 'INTERNAL', message: e?.message ?? String(err) };
}
