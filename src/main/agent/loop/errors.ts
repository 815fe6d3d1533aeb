import { LoupeError } from '../../errors';

/** The request used its turns without a final answer. LLM_ERROR: no error code is closer. */
export class TurnLimitError extends LoupeError {
  constructor(turns: number) {
    super('LLM_ERROR', `Stopped after ${turns} model turns without a final answer. Ask again with "continue" to let it go on, narrow the request, or raise the turn limit (LOUPE_MAX_TURNS).`);
  }
}
