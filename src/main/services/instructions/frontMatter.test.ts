import { describe, expect, it } from 'vitest';
import { parseCursorRule } from './frontMatter';

describe('parseCursorRule', () => {
  it('reads the keys Cursor writes, in each shape people use', () => {
    const shapes: [string, string[]][] = [
      ['globs: src/**/*.ts, *.tsx', ['src/**/*.ts', '*.tsx']],
      ['globs: "src/**/*.ts"', ['src/**/*.ts']],
      ['globs: ["a/*.py", \'b/**\']', ['a/*.py', 'b/**']],
      ['globs:\n  - "*.go"\n  - cmd/**', ['*.go', 'cmd/**']],
      ['globs:', []],
    ];
    for (const [line, globs] of shapes) {
      const r = parseCursorRule(`---\ndescription: "Style"\n${line}\nalwaysApply: false\n---\nUse tabs.\n`);
      expect(r.globs, line).toEqual(globs);
      expect(r.description).toBe('Style');
      expect(r.alwaysApply).toBe(false);
      expect(r.body).toBe('Use tabs.\n');
    }
  });

  it('alwaysApply true, CRLF and a BOM', () => {
    const r = parseCursorRule('\uFEFF---\r\nalwaysApply: true\r\n---\r\nAlways.');
    expect(r).toEqual({ description: '', globs: [], alwaysApply: true, body: 'Always.' });
  });

  it('a file without front matter, or with an unclosed one, is all body', () => {
    expect(parseCursorRule('Just text.').body).toBe('Just text.');
    const open = '---\nglobs: *.ts\nno end';
    expect(parseCursorRule(open)).toEqual({ description: '', globs: [], alwaysApply: false, body: open });
  });
});
