import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readFrontMatter } from './frontMatter';

describe('readFrontMatter', () => {
  it("reads Claude Code's agent files as people write them", () => {
    const fm = readFrontMatter(
      [
        '---',
        'name: code-reviewer',
        'description: Use this agent when: you review code. Examples:\\n<example>',
        'tools: Read, Grep, Glob  # no writes',
        'model: sonnet',
        'maxTurns: 12',
        'isolation: worktree',
        'background: true',
        '---',
        'You review code.',
        '',
      ].join('\n'),
    );
    expect(fm.present).toBe(true);
    expect(fm.problems).toEqual([]);
    expect(fm.data).toEqual({
      name: 'code-reviewer',
      description: 'Use this agent when: you review code. Examples:\\n<example>',
      tools: 'Read, Grep, Glob',
      model: 'sonnet',
      maxTurns: 12,
      isolation: 'worktree',
      background: true,
    });
    expect(fm.body).toBe('You review code.\n');
  });

  it('reads block scalars, nested maps, block and flow lists, quoted values', () => {
    const fm = readFrontMatter(
      [
        '---',
        'description: |',
        '  Line one',
        '  Line two',
        '',
        '  Para',
        'tools:',
        '  write: false',
        '  bash: false',
        'permission:',
        '  edit: deny',
        '  bash:',
        '    "git *": allow',
        'list:',
        '- a',
        '- "b, c"',
        'other: [x, \'y\', "z", mcp__db__query]',
        'nested: {write: false, edit: true}',
        'folded: >-',
        '  a',
        '  b',
        'q: "multi',
        '  line\\tend"',
        "single: 'it''s'",
        'empty:',
        '---',
        'x',
      ].join('\n'),
    );
    expect(fm.problems).toEqual([]);
    expect(fm.data).toEqual({
      description: 'Line one\nLine two\n\nPara\n',
      tools: { write: false, bash: false },
      permission: { edit: 'deny', bash: { 'git *': 'allow' } },
      list: ['a', 'b, c'],
      other: ['x', 'y', 'z', 'mcp__db__query'],
      nested: { write: false, edit: true },
      folded: 'a b',
      q: 'multi line\tend',
      single: "it's",
      empty: null,
    });
    expect(fm.body).toBe('x');
  });

  it('reports what it cannot place and keeps the rest', () => {
    const fm = readFrontMatter(['---', 'name: a', '  stray indented line', 'not a key line', 'description: b', '---', ''].join('\n'));
    expect(fm.data).toEqual({ name: 'a stray indented line', description: 'b' });
    expect(fm.problems).toEqual([{ line: 4, message: expect.stringMatching(/not a key line/) }]);
  });

  it('a file without front matter, or one that never closes, is all body', () => {
    expect(readFrontMatter('# Title\ntext')).toMatchObject({ present: false, data: {}, body: '# Title\ntext' });
    expect(readFrontMatter('---\nname: a\n')).toMatchObject({ present: false, data: {}, problems: [{ line: 1 }] });
  });

  it('never throws, whatever the text', () => {
    const line = fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('- x', '  - y', 'k: |', 'k: [a, {b: c}', 'k: "open', '  k: v', '- k: v', '\t- t', '...'));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), (lines) => {
        const fm = readFrontMatter(['---', ...lines, '---', 'body'].join('\n'));
        expect(typeof fm.body).toBe('string');
      }),
      { numRuns: 500 },
    );
  });
});
