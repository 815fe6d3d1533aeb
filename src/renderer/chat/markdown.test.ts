import { describe, expect, it } from 'vitest';
import { parseInline, parseMarkdown } from './markdown';

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
