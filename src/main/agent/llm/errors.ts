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
