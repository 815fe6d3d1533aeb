import { LoupeError } from '../../errors';
import { NO_MODEL_MESSAGE } from './config';

export class LlmError extends LoupeError {
  constructor(
    message: string,
    /** The HTTP status when the endpoint answered with one. */
    readonly status?: number,
  ) {
    super('LLM_ERROR', message);
  }
}

export class NoModelError extends LlmError {
  constructor(extra = '') {
    super(`${NO_MODEL_MESSAGE}${extra}`);
  }
}

/** The stream ended before the model finished (connection cut, server crash): worth a retry. */
export class StreamCutError extends LlmError {
  constructor(detail: string) {
    super(`The model's answer was cut off mid-stream (${detail}).`);
  }
}

/** The server answered with an error (an HTTP status, an error event, a JSON error body). */
export class ServerError extends LlmError {
  constructor(
    message: string,
    status: number | undefined,
    /** Whether another attempt can help: rate limits, overload, server faults. */
    readonly retryable: boolean,
    /** The server's retry-after, when it gave one. */
    readonly retryAfterMs?: number,
  ) {
    super(message, status);
  }
}

/** The stream went silent: no content for the idle limit (keep-alive comments do not count). */
export class IdleTimeoutError extends LlmError {
  constructor(ms: number) {
    super(`The model sent no content for ${Math.round(ms / 1000)} s. Is the server overloaded? Raise LOUPE_LLM_IDLE_TIMEOUT_MS (milliseconds) for a slow local model.`);
  }
}
