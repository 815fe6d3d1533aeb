import { describe, expect, it } from 'vitest';
import { ModelCache } from './modelCache';

class FakeModel {
  disposed = false;
  constructor(
    public value: string,
    public lang: string,
  ) {}
  getValue() {
    return this.value;
  }
  setValue(v: string) {
    this.value = v;
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
});
