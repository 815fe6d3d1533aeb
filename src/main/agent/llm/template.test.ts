import { describe, expect, it } from 'vitest';
import { opensThink } from './template';

describe('opensThink: the generation prompt ends inside a think block', () => {
  it.each([
    ['DeepSeek-R1', '<｜begin▁of▁sentence｜><｜User｜>Hello<｜Assistant｜><think>\n', true],
    ['QwQ (ChatML)', '<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n<think>\n', true],
    ['a template that does not', '<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n', false],
    ['thinking switched off: an empty block, closed', '<|im_start|>assistant\n<think>\n\n</think>\n\n', false],
    ['<think> named in the system text, not opened', '<|im_start|>system\nReason inside <think> tags.<|im_end|>\n<|im_start|>assistant\n', false],
  ])('%s', (_name, prompt, opens) => {
    expect(opensThink(prompt)).toBe(opens);
  });
});
