import { describe, expect, it } from 'vitest';
import { closesFence, parseInline, parseMarkdown } from './markdown';

describe('chat markdown', () => {
  it('splits paragraphs, fenced code (also unterminated while streaming), lists and headings', () => {
    const blocks = parseMarkdown('# Plan\n\nFirst para\nstill first.\n\n- one\n- two\n\n```ts\nconst a = 1;\n```\n1. x\n\n```sh\nnpm t');
    expect(blocks.map((b) => b.t)).toEqual(['heading', 'para', 'list', 'code', 'list', 'code']);
    expect(blocks[3]).toEqual({ t: 'code', lang: 'ts', text: 'const a = 1;', open: false });
    expect(blocks[5]).toMatchObject({ t: 'code', lang: 'sh', text: 'npm t', open: true });
    expect(blocks[2]).toMatchObject({ ordered: false, items: [[{ t: 'text', v: 'one' }], [{ t: 'text', v: 'two' }]] });
  });

  it('inline code, bold and italic; markup characters in text stay text', () => {
    expect(parseInline('run `npm test` **now** or *later* <b>x</b>')).toEqual([
      { t: 'text', v: 'run ' },
      { t: 'code', v: 'npm test' },
      { t: 'text', v: ' ' },
      { t: 'strong', v: 'now' },
      { t: 'text', v: ' or ' },
      { t: 'em', v: 'later' },
      { t: 'text', v: ' <b>x</b>' },
    ]);
  });
});

describe('code fences', () => {
  it('close only on a bare fence of the same character, at least as long', () => {
    expect(closesFence('```', '```')).toBe(true);
    expect(closesFence('  ````  ', '```')).toBe(true);
    expect(closesFence('``', '```')).toBe(false);
    expect(closesFence('```ts', '```')).toBe(false);
    expect(closesFence('~~~', '```')).toBe(false);
    expect(closesFence('```', '````')).toBe(false);
  });

  it('a block is open while its closing fence has not fully arrived', () => {
    const streamed = '```ts\nconst a = 1;\n``';
    expect(parseMarkdown(streamed)).toEqual([{ t: 'code', lang: 'ts', text: 'const a = 1;\n``', open: true }]);
    expect(parseMarkdown(`${streamed}\``)).toEqual([{ t: 'code', lang: 'ts', text: 'const a = 1;', open: false }]);
  });

  it('a fence with an info string inside a longer fence is content, not its end', () => {
    const blocks = parseMarkdown('````md\n```ts\nx\n```\n````\nafter');
    expect(blocks[0]).toEqual({ t: 'code', lang: 'md', text: '```ts\nx\n```', open: false });
    expect(blocks[1]).toMatchObject({ t: 'para' });
  });
});
