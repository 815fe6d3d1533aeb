import { describe, expect, it } from 'vitest';
import { compactDiffOf, fromUnified, lineDiff } from './compactDiff';

describe('an edit card’s compact diff', () => {
  it('shows the removed and the added lines with one line of context', () => {
    expect(lineDiff(['a', 'b', 'c', 'd', 'e'], ['a', 'b', 'C', 'd', 'e'])).toEqual([
      { sign: ' ', text: 'b' },
      { sign: '-', text: 'c' },
      { sign: '+', text: 'C' },
      { sign: ' ', text: 'd' },
    ]);
  });

  it('reads a replacement from its arguments, a unified diff from its result, a new file from its content', () => {
    expect(compactDiffOf({ old_str: 'x = 1', new_str: 'x = 2\ny = 3' }, {})).toMatchObject({ added: 2, removed: 1 });
    expect(compactDiffOf({}, { git_diff: '--- a/f\n+++ b/f\n@@ -1 +1 @@\n-old\n+new\n' })?.lines).toEqual([
      { sign: '-', text: 'old' },
      { sign: '+', text: 'new' },
    ]);
    expect(compactDiffOf({ content: 'one\ntwo\n' }, { operation: 'create' })).toMatchObject({ added: 2, removed: 0 });
    expect(compactDiffOf({ content: 'one\n' }, { operation: 'overwrite' })).toBeNull();
    expect(fromUnified('@@ -1 +1 @@\n x\n')).toEqual([{ sign: ' ', text: 'x' }]);
  });
});
