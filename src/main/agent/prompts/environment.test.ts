import { describe, expect, it } from 'vitest';
import { localDate, summariseStatus } from './environment';

const z = (...entries: string[]) => `${entries.join('\0')}\0`;

describe('the git line of the prompt', () => {
  it.each([
    [z('## main'), 'branch main: clean'],
    [z('## main...origin/main [ahead 2, behind 1]', ' M a.ts', 'M  b.ts', '?? c.ts'), 'branch main (ahead 2, behind 1 origin/main): 2 changed, 1 untracked'],
    [z('## main...origin/main'), 'branch main: clean'],
    [z('## No commits yet on trunk', '?? a'), 'branch trunk (no commits yet): 1 untracked'],
    [z('## feature/x', 'R  new.ts', 'old.ts', 'UU both.ts'), 'branch feature/x: 1 changed, 1 in conflict'],
    [z('## main', '?? .loupe/', ' M .loupe/config.json', '?? .loupey'), 'branch main: 1 untracked'],
  ])('%j → %s', (out, line) => {
    expect(summariseStatus(out)).toBe(line);
  });

  it('names the commit of a detached HEAD', () => {
    expect(summariseStatus(z('## HEAD (no branch)', ' D gone.ts'), 'abc1234')).toBe('detached HEAD at abc1234: 1 changed');
  });

  it('gives the local date with its weekday', () => {
    expect(localDate(new Date(2026, 1, 1, 23, 59))).toBe('2026-02-01 (Sunday)');
  });
});
