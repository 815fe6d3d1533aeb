import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { isOpenAIError } from './openaiErrors';

describe('isOpenAIError', () => {
  it('answers as instanceof would for the classes the client checks', () => {
    const cases: [unknown, boolean, boolean, boolean][] = [
      [new OpenAI.APIError(500, undefined, 'boom', new Headers()), true, false, false],
      [new OpenAI.APIUserAbortError(), true, true, false],
      [new OpenAI.APIConnectionError({ message: 'refused' }), true, false, true],
      [new OpenAI.InternalServerError(500, undefined, 'x', new Headers()), true, false, false],
      [new TypeError('fetch failed'), false, false, false],
      [Object.assign(new Error('x'), { name: 'APIError' }), false, false, false],
      ['APIError', false, false, false],
    ];
    for (const [err, api, abort, conn] of cases) {
      expect(isOpenAIError(err, 'APIError')).toBe(api);
      expect(isOpenAIError(err, 'APIError')).toBe(err instanceof OpenAI.APIError);
      expect(isOpenAIError(err, 'APIUserAbortError')).toBe(abort);
      expect(isOpenAIError(err, 'APIConnectionError')).toBe(conn);
    }
  });
});
