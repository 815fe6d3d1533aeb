import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { joinWords, splitWords } from './shellWords';

describe('the command line of the MCP server form', () => {
  it('reads what it wrote, whatever the words', () => {
    fc.assert(fc.property(fc.array(fc.string({ maxLength: 12 }), { minLength: 1, maxLength: 6 }), (words) => {
          expect(splitWords(joinWords(words))).toEqual(words);
        }), { numRuns: 500 });
  });

  it('reads quotes and escapes as sh does', () => {
    expect(splitWords(`npx -y @x/server "a folder" 'it''s' b\\ c "q\\"x" ''`)).toEqual(['npx', '-y', '@x/server', 'a folder', 'its', 'b c', 'q"x', '']);
    expect(() => splitWords(`node "x`)).toThrow(/double quote/);
    expect(() => splitWords(`node 'x`)).toThrow(/single quote/);
  });
});
