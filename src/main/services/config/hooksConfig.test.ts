// The one schema of `hooks`: Claude Code's shape read from its files with their other keys left
// alone, each problem at its line and column, matchers as Claude Code reads them.
import { describe, expect, it } from 'vitest';
import { claudeFileHooks, hookDigest, matches } from './hooksConfig';

describe('hooks in a Claude Code settings file', () => {
  it('reads the hooks, leaves the other keys alone, and says each problem where it is written', () => {
    const text = [
      '{',
      '  "permissions": {"allow": ["Bash(npm test:*)"]},',
      '  "model": "opus",',
      '  "hooks": {',
      '    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "check.sh", "timeout": 5}]}],',
      '    "PermissionRequest": [{"hooks": [{"type": "command", "command": "x"}]}],',
      '    "PostToolUse": [{"matcher": "Edit(", "hooks": [{"type": "command", "command": "fmt"}]},',
      '                    {"hooks": [{"type": "prompt", "prompt": "is it fine?"}, {"type": "command"}]}]',
      '  },',
      '  "disableAllHooks": false',
      '}',
    ].join('\n');
    const r = claudeFileHooks(text, '.claude/settings.json', '.claude/settings.json');
    expect(r.hooks).toEqual([expect.objectContaining({ event: 'PreToolUse', matcher: 'Bash', handler: { type: 'command', command: 'check.sh', timeout: 5 }, owner: 'project', dialect: 'claude', at: 'hooks.PreToolUse[0].hooks[0]' })]);
    const said = r.problems.map((p) => `${p.line}:${p.column} ${p.message}`);
    expect(said).toEqual([
      expect.stringMatching(/^6:5 hooks\.PermissionRequest: Loupe does not fire "PermissionRequest"/),
      expect.stringMatching(/^7:22 hooks\.PostToolUse\[0\]\.matcher: "Edit\(" is not a valid regular expression/),
      expect.stringMatching(/^8:33 hooks\.PostToolUse\[1\]\.hooks\[0\]\.type: Loupe runs "command" and "http" hooks, not "prompt"/),
      expect.stringMatching(/^8:\d+ hooks\.PostToolUse\[1\]\.hooks\[1\]: command: .*this hook does not run/),
    ]);
  });

  it('"*" and "" match every tool and are no problem', () => {
    const r = claudeFileHooks(JSON.stringify({ hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: 'a' }] }, { matcher: '', hooks: [{ type: 'command', command: 'b' }] }] } }), '.claude/settings.json', '.claude/settings.json');
    expect(r.problems).toEqual([]);
    expect(r.hooks.map((x) => x.matcher)).toEqual(['*', '']);
  });

  it('a file that does not parse is one problem and no hooks', () => {
    const r = claudeFileHooks('{"hooks": {', '~/.claude/settings.json', '/home/p/.claude/settings.json');
    expect(r.hooks).toEqual([]);
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]!.line).toBe(1);
  });
});

describe("Claude Code's matchers", () => {
  it.each([
    ['', 'Bash', true],
    ['*', 'mcp__x__y', true],
    ['Bash', 'Bash', true],
    ['Bash', 'BashOutput', false],
    ['Edit|Write', 'Write', true],
    ['Edit|Write', 'MultiEdit', false],
    ['mcp__memory__.*', 'mcp__memory__create', true],
    ['Notebook.*', 'NotebookEdit', true],
    ['^Read$', 'Read', true],
    ['^Read$', 'ReadMe', false],
  ])('%j against %s: %s', (matcher, name, expected) => {
    expect(matches(matcher, name)).toBe(expected);
  });
});

it('one digest per command line: a timeout or message may change, the line may not', () => {
  const base = hookDigest({ type: 'command', command: 'check.sh' });
  expect(hookDigest({ type: 'command', command: 'check.sh', timeout: 9, statusMessage: 'checking' })).toBe(base);
  expect(hookDigest({ type: 'command', command: 'check.sh --strict' })).not.toBe(base);
  expect(hookDigest({ type: 'command', command: 'check.sh', args: [] })).not.toBe(base);
  expect(hookDigest({ type: 'command', command: 'check.sh', network: { hosts: ['x.com'] } })).not.toBe(base);
});
