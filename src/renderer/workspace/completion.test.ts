import { describe, expect, it } from 'vitest';
import { longestCommonPrefix, splitPath, tabComplete } from './completion';

describe('path completion', () => {
  it('takes a single candidate whole, with a separator to descend into it', () => {
    expect(tabComplete('/home/u/pro', ['/home/u/projects'], -1)).toBe('/home/u/projects/');
  });

  it('completes several candidates to their shared prefix', () => {
    expect(tabComplete('/home/u/p', ['/home/u/projects', '/home/u/prototypes'], -1)).toBe('/home/u/pro');
    expect(tabComplete('/home/u/pro', ['/home/u/projects', '/home/u/prototypes'], -1)).toBeNull();
  });

  it('takes the highlighted candidate', () => {
    expect(tabComplete('/home/u/pro', ['/home/u/projects', '/home/u/prototypes'], 1)).toBe('/home/u/prototypes/');
  });

  it('keeps Windows separators', () => {
    expect(tabComplete('C:\\Us', ['C:\\Users'], -1)).toBe('C:\\Users\\');
  });

  it('splits paths for display', () => {
    expect(splitPath('/home/u/projects')).toEqual({ dir: '/home/u/', name: 'projects' });
    expect(longestCommonPrefix([])).toBe('');
  });
});
