import { describe, expect, it } from 'vitest';
import { isDirty, ModelCache } from './modelCache';

class FakeModel {
  disposed = false;
  version = 1;
  constructor(
    public value: string,
    public lang: string,
  ) {}
  getValue() {
    return this.value;
  }
  setValue(v: string) {
    this.value = v;
    this.version++;
  }
  /** The person types. */
  type(v: string) {
    this.value = v;
    this.version++;
  }
  getAlternativeVersionId() {
    return this.version;
  }
  getLanguageId() {
    return this.lang;
  }
  dispose() {
    this.disposed = true;
  }
}

function cache(max: number) {
  const created: FakeModel[] = [];
  const c = new ModelCache((_key, text, lang) => {
    const m = new FakeModel(text, lang);
    created.push(m);
    return m as never;
  }, max);
  const setLang = (m: unknown, l: string) => ((m as FakeModel).lang = l);
  return { c, created, setLang };
}

describe('ModelCache', () => {
  it('reuses a model per key and refreshes changed content in place', () => {
    const { c, created, setLang } = cache(3);
    const a = c.acquire('/a.ts', 'one', 'typescript', setLang);
    const again = c.acquire('/a.ts', 'two', 'typescript', setLang);
    expect(again.model).toBe(a.model);
    expect(created).toHaveLength(1);
    expect(created[0].value).toBe('two');
  });

  it('disposes the least recently used model past the limit', () => {
    const { c, created, setLang } = cache(2);
    c.acquire('/a', 'a', 'plaintext', setLang);
    c.acquire('/b', 'b', 'plaintext', setLang);
    c.acquire('/a', 'a', 'plaintext', setLang);
    c.acquire('/c', 'c', 'plaintext', setLang);
    expect(created.map((m) => m.disposed)).toEqual([false, true, false]);
    c.dispose();
    expect(created.every((m) => m.disposed)).toBe(true);
  });

  it('keeps unsaved edits when the file changes on disk, based on what they were made on', () => {
    const { c, created, setLang } = cache(3);
    const a = c.acquire('/a', 'one\n', 'plaintext', setLang);
    created[0].type('one\nmine\n');
    expect(isDirty(a)).toBe(true);
    c.acquire('/a', 'one\nagent\n', 'plaintext', setLang);
    expect(created[0].value).toBe('one\nmine\n');
    expect(a.base).toBe('one\n');
    // The disk caught up with the buffer (saved elsewhere, CRLF on disk): clean again.
    c.acquire('/a', 'one\r\nmine\r\n', 'plaintext', setLang);
    expect(isDirty(a)).toBe(false);
    expect(a.base).toBe('one\r\nmine\r\n');
  });

  it('a clean buffer follows the disk and stays clean', () => {
    const { c, created, setLang } = cache(3);
    const a = c.acquire('/a', 'one\n', 'plaintext', setLang);
    c.acquire('/a', 'one\nagent\n', 'plaintext', setLang);
    expect(created[0].value).toBe('one\nagent\n');
    expect(isDirty(a)).toBe(false);
    c.acquire('/a', 'one\n', 'plaintext', setLang);
    expect(created[0].value).toBe('one\n');
    expect(isDirty(a)).toBe(false);
    expect(a.base).toBe('one\n');
  });

  it('never drops a model with unsaved edits to make room', () => {
    const { c, created, setLang } = cache(1);
    c.acquire('/a', 'a', 'plaintext', setLang);
    created[0].type('a edited');
    c.acquire('/b', 'b', 'plaintext', setLang);
    c.acquire('/c', 'c', 'plaintext', setLang);
    expect(created.map((m) => m.disposed)).toEqual([false, true, false]);
    expect(c.get('/a')?.model.getValue()).toBe('a edited');
    c.drop('/a');
    expect(created[0].disposed).toBe(true);
  });
});
