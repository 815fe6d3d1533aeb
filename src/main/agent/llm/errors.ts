import { LoupeError } from '../../errors';

export class LlmError extends LoupeError {
  constructor(message: string) {
    super('LLM_ERROR', message);
  }
}
