import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readFrontMatter } from './frontMatter';

const file = (block: string, body = 'Body.\n') => `---\n${block}\n---\n${body}`;

describe('readFrontMatter', () => {
  it('reads valid YAML as YAML: block scalars, lists, maps, quoted values', () => {
    const fm = readFrontMatter(file('name: x\ndescription: |-\n  line one: with a colon\n  line two\nallowed-tools:\n  - Bash(git:*)\n  - Read\nmetadata:\n  version: "1.0"\n  author: me\nquoted: \'it\'\'s\''));
    expect(fm.read).toBe('yaml');
    expect(fm.problems).toEqual([]);
    expect(fm.data).toEqual({ name: 'x', description: 'line one: with a colon\nline two', 'allowed-tools': ['Bash(git:*)', 'Read'], metadata: { version: '1.0', author: 'me' }, quoted: "it's" });
    expect(fm.body).toBe('Body.\n');
  });

  it('reads an unquoted colon line by line instead of dropping the file, and says where YAML stopped', () => {
    const fm = readFrontMatter(file('name: trap\ndescription: Use when: the user asks; also when: they mention notes\nmetadata:\n  owner: docs'));
    expect(fm.read).toBe('lines');
    expect(fm.data).toEqual({ name: 'trap', description: 'Use when: the user asks; also when: they mention notes', metadata: { owner: 'docs' } });
    expect(fm.problems).toHaveLength(1);
    expect(fm.problems[0]).toMatch(/not valid YAML \(line 3, column \d+: .+\), so it was read line by line/);
  });

  it('line by line: lists, flow lists, block scalars, continuation lines, duplicate keys (the last wins)', () => {
    const fm = readFrontMatter(file('a: x: y\ntools:\n  - one\n  - "two"\nflow: [a, \'b\']\nlong: starts here\n  and goes on\nblock: |\n  kept: as is\n  second\nfolded: >-\n  one\n  two\nkey: first\nkey: second'));
    expect(fm.read).toBe('lines');
    expect(fm.data).toEqual({ a: 'x: y', tools: ['one', 'two'], flow: ['a', 'b'], long: 'starts here and goes on', block: 'kept: as is\nsecond', folded: 'one two', key: 'second' });
  });

  it('handles a BOM and CRLF, no front matter, and an unclosed one', () => {
    expect(readFrontMatter('\uFEFF---\r\nname: w\r\n---\r\nText\r\n')).toMatchObject({ read: 'yaml', data: { name: 'w' }, body: 'Text\n' });
    expect(readFrontMatter('Just text\n')).toEqual({ data: {}, body: 'Just text\n', read: 'none', problems: [] });
    const open = readFrontMatter('---\nname: x\nno end');
    expect(open.read).toBe('none');
    expect(open.problems[0]).toMatch(/no closing ---/);
  });

  it('never evaluates: tags stay data, an alias bomb is refused and read line by line', () => {
    expect(readFrontMatter(file('name: !!str 12')).data.name).toBe('12');
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x]', ...Array.from({ length: 9 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`)].join('\n');
    const fm = readFrontMatter(file(bomb));
    expect(fm.read).toBe('lines');
  });

  it('any one-line description, colons and quotes included, comes back as written and the file is never dropped', () => {
    // Text as people write it: words, colons, commas, hashes inside words, quotes inside.
    const word = fc.stringMatching(/^[A-Za-z0-9(),.'"`/-]{1,12}$/);
    const sep = fc.constantFrom(' ', ': ', ', ', ' - ', '; ');
    const description = fc
      .array(fc.tuple(word, sep), { minLength: 1, maxLength: 12 })
      .map((parts) => parts.map(([w, s]) => w + s).join('').trim())
      .filter((d) => d.length > 0 && !/^['"`[{|>&*!%@?,-]/.test(d) && !d.endsWith(':') && !/\s#/.test(d) && !/^(true|false|null|~|[-+.\d][\d.e+-]*)$/i.test(d));
    fc.assert(
      fc.property(description, (d) => {
        const fm = readFrontMatter(file(`name: p\ndescription: ${d}\nlicense: MIT`));
        const got = fm.data.description;
        // YAML reads a value with quotes inside as written, or fails and the lines give it back whole.
        expect(String(got)).toBe(d);
        expect(fm.data.name).toBe('p');
        expect(fm.data.license).toBe('MIT');
        expect(fm.body).toBe('Body.\n');
      }),
      { numRuns: 400 },
    );
  });
});
