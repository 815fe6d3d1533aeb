import { describe, expect, it } from 'vitest';
import { llmConfigFromEnv } from './config';
import { parseJsonAnswer } from './jsonAnswer';

describe('LLM configuration', () => {
  it('is null without LOUPE_MODEL: the corrector is then disabled', () => {
    expect(llmConfigFromEnv({ OPENAI_BASE_URL: 'http://x/v1' })).toBeNull();
  });

  it('reads base URL, key and model, with a placeholder key for local servers', () => {
    expect(llmConfigFromEnv({ LOUPE_MODEL: 'm', OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' })).toEqual({ model: 'm', apiKey: 'no-key', baseURL: 'http://127.0.0.1:1/v1' });
    expect(llmConfigFromEnv({ LOUPE_MODEL: 'm', OPENAI_API_KEY: 'sk' })).toEqual({ model: 'm', apiKey: 'sk' });
  });
});

describe('JSON answers', () => {
  it('takes the object out of prose and code fences', () => {
    expect(parseJsonAnswer('Sure:\n```json\n{"a": "}"}\n```')).toEqual({ a: '}' });
  });

  it('refuses non-objects with LLM_ERROR', () => {
    expect(() => parseJsonAnswer('no json here')).toThrow(expect.objectContaining({ code: 'LLM_ERROR' }));
    expect(() => parseJsonAnswer('{not json}')).toThrow(expect.objectContaining({ code: 'LLM_ERROR' }));
  });
});
