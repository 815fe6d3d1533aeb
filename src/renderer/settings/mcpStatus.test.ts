import { describe, expect, it } from 'vitest';
import { statusWords } from './mcpStatus';

describe('statusWords', () => {
  it('says disabled for a disabled server whatever its status, counts a ready one’s tools', () => {
    expect(statusWords({ status: 'pending', disabled: true, tools: [] })).toBe('disabled');
    expect(statusWords({ status: 'pending', disabled: false, tools: [] })).toBe('waiting for you');
    expect(statusWords({ status: 'ready', disabled: false, tools: ['a'] })).toBe('ready with 1 tool');
    expect(statusWords({ status: 'ready', disabled: false, tools: ['a', 'b'] })).toBe('ready with 2 tools');
    expect(statusWords({ status: 'failed', disabled: false, tools: [] })).toBe('failed');
  });
});
