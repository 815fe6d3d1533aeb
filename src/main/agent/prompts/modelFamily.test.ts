import { describe, expect, it } from 'vitest';
import type { ProfileView } from '../llm/profile';
import { adjustmentsFor, parameterBillions } from './modelFamily';

const profile = (p: Partial<ProfileView> = {}): ProfileView => ({ dropped: [], reasoningReplayed: false, thinkInText: false, thinkOpensInPrompt: false, textualToolCalls: false, ...p });

describe('model family adjustments', () => {
  it.each([
    ['gpt-4o', []],
    ['gpt-4o-mini', []],
    ['claude-sonnet-4-5', []],
    ['mistral-large-latest', []],
    ['llama3.3:70b', []],
    ['mixtral-8x7b-instruct', []],
    ['o3-mini', ['reasoning']],
    ['o1', ['reasoning']],
    ['openai/gpt-5', ['reasoning']],
    ['deepseek-reasoner', ['reasoning']],
    ['deepseek-r1:32b', ['reasoning']],
    ['deepseek-r1:7b', ['reasoning', 'small']],
    ['qwq-32b', ['reasoning']],
    ['qwen3-30b-a3b-thinking-2507', ['reasoning']],
    ['gpt-oss-20b', ['reasoning']],
    ['qwen2.5-coder:7b', ['small']],
    ['llama-3.1-8B-Instruct', ['small']],
    ['gemma3:4b', ['small']],
    ['qwen2.5-coder:14b', ['small']],
    ['qwen2.5-coder:32b', []],
    ['phi3:3.8b', ['small']],
  ])('%s → %j', (name, expected) => {
    expect(adjustmentsFor({ name, profile: profile() })).toEqual(expected);
  });

  it('follows what the endpoint showed, whatever the name', () => {
    expect(adjustmentsFor({ name: 'my-model', profile: profile({ reasoningReplayed: true }) })).toEqual(['reasoning']);
    expect(adjustmentsFor({ name: 'my-model', profile: profile({ thinkInText: true }) })).toEqual(['reasoning']);
    expect(adjustmentsFor({ name: 'my-model', profile: profile({ textualToolCalls: true }) })).toEqual(['small']);
    expect(adjustmentsFor({ name: 'my-model' })).toEqual([]);
    expect(adjustmentsFor(undefined)).toEqual([]);
  });

  it('reads parameter counts, not versions or mixtures', () => {
    expect(parameterBillions('qwen2.5-coder:1.5b')).toBe(1.5);
    expect(parameterBillions('llama3.1:405b')).toBe(405);
    expect(parameterBillions('mixtral-8x22b')).toBeNull();
    expect(parameterBillions('gpt-4o')).toBeNull();
    expect(parameterBillions('bge-base')).toBeNull();
  });
});
