import { describe, expect, it } from 'vitest';
import { ColorizedCache, colorizableText, resolveLanguage, trimColorizedHtml, type LanguageInfo } from './codeHighlight';

// A few entries as Monaco's registry has them.
const LANGS: LanguageInfo[] = [
  { id: 'plaintext', aliases: ['Plain Text', 'text'], extensions: ['.txt'] },
  { id: 'typescript', aliases: ['TypeScript', 'ts', 'typescript'], extensions: ['.ts', '.tsx', '.cts', '.mts'] },
  { id: 'javascript', aliases: ['JavaScript', 'javascript', 'js'], extensions: ['.js', '.es6', '.jsx', '.mjs', '.cjs'] },
  { id: 'python', aliases: ['Python', 'py'], extensions: ['.py', '.rpy', '.pyw', '.cpy', '.gyp', '.gypi'] },
  { id: 'shell', aliases: ['Shell', 'sh'], extensions: ['.sh', '.bash'] },
  { id: 'yaml', aliases: ['YAML', 'yaml', 'YML', 'yml'], extensions: ['.yaml', '.yml'] },
  { id: 'rust', aliases: ['Rust', 'rust'], extensions: ['.rs', '.rlib'] },
  { id: 'csharp', aliases: ['C#', 'csharp'], extensions: ['.cs', '.csx', '.cake'] },
  { id: 'go', aliases: ['Go'], extensions: ['.go'] },
];

describe('fence tag → Monaco language', () => {
  it('by id, alias, extension, then the common tags Monaco does not list', () => {
    expect(resolveLanguage('typescript', LANGS)).toBe('typescript');
    expect(resolveLanguage('TS', LANGS)).toBe('typescript');
    expect(resolveLanguage('tsx', LANGS)).toBe('typescript');
    expect(resolveLanguage('jsx', LANGS)).toBe('javascript');
    expect(resolveLanguage('Python', LANGS)).toBe('python');
    expect(resolveLanguage('bash', LANGS)).toBe('shell');
    expect(resolveLanguage('zsh', LANGS)).toBe('shell');
    expect(resolveLanguage('rs', LANGS)).toBe('rust');
    expect(resolveLanguage('c#', LANGS)).toBe('csharp');
    expect(resolveLanguage('golang', LANGS)).toBe('go');
  });

  it('nothing or something unknown is plain text', () => {
    expect(resolveLanguage('', LANGS)).toBe('plaintext');
    expect(resolveLanguage('brainfudge', LANGS)).toBe('plaintext');
    // An alias whose language is not registered stays plain too.
    expect(resolveLanguage('ps1', LANGS)).toBe('plaintext');
  });
});

describe('what to colour', () => {
  it('a settled block whole; a streaming one only up to its last complete line', () => {
    expect(colorizableText('a\nb', true)).toBe('a\nb');
    expect(colorizableText('const a = 1;\nconst b', false)).toBe('const a = 1;');
    expect(colorizableText('const a = 1;\n', false)).toBe('const a = 1;');
    expect(colorizableText('const a', false)).toBe('');
  });

  it('drops the colorizer’s break after the last line', () => {
    expect(trimColorizedHtml('<span class="mtk1">a</span><br/><span class="mtk1">b</span><br/>')).toBe('<span class="mtk1">a</span><br/><span class="mtk1">b</span>');
    expect(trimColorizedHtml('')).toBe('');
  });
});

describe('the cache of coloured blocks', () => {
  it('keeps to its budget, dropping the least recently used first', () => {
    const cache = new ColorizedCache(30);
    cache.set('a', 'x'.repeat(9)); // 10
    cache.set('b', 'x'.repeat(9)); // 20
    expect(cache.get('a')).toBe('x'.repeat(9)); // a is now the most recent
    cache.set('c', 'x'.repeat(14)); // 35: b goes
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
    expect(cache.get('c')).toBeDefined();
    expect(cache.size).toBe(2);
  });

  it('an entry larger than the budget replaces everything but is kept itself', () => {
    const cache = new ColorizedCache(10);
    cache.set('a', 'xx');
    cache.set('big', 'x'.repeat(50));
    expect(cache.size).toBe(1);
    expect(cache.get('big')).toHaveLength(50);
  });
});
