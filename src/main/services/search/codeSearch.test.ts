import { utimes } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, writeTree } from '../../../../test/support/tmp';
import { codeSearch, formatCodeSearch } from './codeSearch';
import { formatListFiles, listFiles } from './listFiles';
import { definedName, relevance } from './relevance';

let root: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ dir: root, cleanup } = await tempDir('loupe-codesearch-'));
  await writeTree(root, {
    'src/components/PaymentForm.tsx': 'export function PaymentForm() {\n  const handleSubmit = async () => {\n    await handlePayment();\n  };\n}\n',
    'src/api/payment.ts': 'export async function handlePayment(data) {\n  return data;\n}\n// handlePayment is retried\n',
    'src/deep/a/b/c/usage.ts': 'callIt(handlePayment);\n',
    'test/payment.test.ts': 'it("calls handlePayment", () => handlePayment());\n',
    'scripts/pay.py': 'def handlePayment(x):\n    return x\n',
    'node_modules/lib/index.js': 'function handlePayment() {}\n',
    'dist/bundle.js': 'function handlePayment() {}\n',
    'unicode.ts': '// é ü — handlePayment\n',
  });
});
afterAll(() => cleanup());

describe('relevance', () => {
  it('finds the name a definition line defines', () => {
    const at = (t: string) => {
      const d = definedName(t);
      return d && t.slice(d[0], d[1]);
    };
    expect(at('export async function handlePayment(data) {')).toBe('handlePayment');
    expect(at('  const handleSubmit = async () => {')).toBe('handleSubmit');
    expect(at('func (s *Server) Handle(w http.ResponseWriter) {')).toBe('Handle');
    expect(at('class Foo extends Bar {')).toBe('Foo');
    expect(at('  async render(props) {')).toBe('render');
    expect(at('  if (x) {')).toBeNull();
    expect(at('callIt(handlePayment);')).toBeNull();
  });

  it('is the sum of its named parts', () => {
    const s = relevance({ path: 'src/api/payment.ts', text: 'export function handlePayment() {', spans: [[16, 29]], fileMatches: 1 });
    expect(s.reasons).toEqual(['defines the match (+0.40)', 'whole word (+0.20)', '1 matching line in file (+0.05)', '2 folders deep (+0.03)', 'source file (+0.10)']);
    expect(s.score).toBe(0.78);
    const partial = relevance({ path: 'test/a.test.ts', text: 'xhandlePaymentx()', spans: [[1, 14]], fileMatches: 1 });
    expect(partial.reasons.some((r) => r.startsWith('whole word') || r.startsWith('source'))).toBe(false);
    expect(partial.score).toBeLessThan(s.score);
  });
});

describe('codeSearch', () => {
  it('returns the seed shape, definitions first, with a timing', async () => {
    const r = await codeSearch(root, { pattern: 'handlePayment|handleSubmit' });
    expect(r.total_matches).toBe(10);
    expect(r.search_time_ms).toBeGreaterThanOrEqual(0);
    expect(r.matches[0]).toMatchObject({ path: 'src/api/payment.ts', line: 1, context: 'export async function handlePayment(data) {' });
    expect(r.matches[0].relevance_score).toBeGreaterThan(0.7);
    const scores = r.matches.map((m) => m.relevance_score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    // Vendored and built copies of a definition rank below the real one.
    const rank = (p: string) => r.matches.findIndex((m) => m.path === p);
    expect(rank('node_modules/lib/index.js')).toBeGreaterThan(rank('src/api/payment.ts'));
    expect(rank('dist/bundle.js')).toBeGreaterThan(rank('src/api/payment.ts'));
  });

  it('filters by language (one or several), path and exclude patterns, and limits', async () => {
    const py = await codeSearch(root, { pattern: 'handlePayment', language: 'python' });
    expect(py.matches.map((m) => m.path)).toEqual(['scripts/pay.py']);
    const both = await codeSearch(root, { pattern: 'handlePayment', language: 'typescript|python' });
    expect(new Set(both.matches.map((m) => path.extname(m.path)))).toEqual(new Set(['.ts', '.tsx', '.py']));
    const scoped = await codeSearch(root, { pattern: 'handlePayment', path: 'src/api' });
    expect(scoped.matches.every((m) => m.path === 'src/api/payment.ts')).toBe(true);
    const excluded = await codeSearch(root, { pattern: 'handlePayment', excludePatterns: ['node_modules', 'dist', 'test'] });
    expect(excluded.matches.some((m) => /^(node_modules|dist|test)\//.test(m.path))).toBe(false);
    const limited = await codeSearch(root, { pattern: 'handlePayment', limit: 2 });
    expect(limited.matches).toHaveLength(2);
    expect(formatCodeSearch(limited)).toContain(`Showing the 2 most relevant of ${limited.total_matches} matches`);
  });

  it('ranks as rg goes exactly as sorting every match would, for every limit', async () => {
    const { dir, cleanup: done } = await tempDir('loupe-codesearch-rank-');
    try {
      // Files with 1 to 25 matches, definitions and uses, at three depths: many equal scores.
      const files: Record<string, string> = {};
      for (let i = 0; i < 60; i++) {
        const lines = Array.from({ length: 1 + ((i * 7) % 25) }, (_, k) => (k % 3 === 0 ? `export function handle${k}() {}` : `  handle${k}(x); // xhandley`));
        files[`${['', 'src/', 'src/deep/a/'][i % 3]}f${i}.ts`] = `${lines.join('\n')}\n`;
      }
      await writeTree(dir, files);
      const all = await codeSearch(dir, { pattern: 'handle', limit: 1000 });
      const perFile = new Map<string, number>();
      for (const m of all.matches) perFile.set(m.path, (perFile.get(m.path) ?? 0) + 1);
      expect(all.matches).toHaveLength(all.total_matches);
      // The reference: every match scored with its file's count, then sorted whole.
      const reference = all.matches
        .map((m) => ({ m, score: relevance({ path: m.path, text: m.context, spans: [...m.context.matchAll(/handle/g)].map((x) => [x.index, x.index + 6] as [number, number]), fileMatches: perFile.get(m.path)! }).score }))
        .sort((a, b) => b.score - a.score || (a.m.path < b.m.path ? -1 : a.m.path > b.m.path ? 1 : 0) || a.m.line - b.m.line)
        .map(({ m }) => `${m.path}:${m.line}`);
      expect(all.matches.map((m) => `${m.path}:${m.line}`)).toEqual(reference);
      for (const limit of [1, 7, 50]) {
        const some = await codeSearch(dir, { pattern: 'handle', limit });
        expect(some.matches.map((m) => `${m.path}:${m.line}`)).toEqual(reference.slice(0, limit));
      }
    } finally {
      await done();
    }
  });

  it('scores byte offsets correctly on non-ASCII lines', async () => {
    const r = await codeSearch(root, { pattern: 'handlePayment', path: 'unicode.ts' });
    expect(r.matches[0].reasons.some((x) => x.startsWith('whole word'))).toBe(true);
  });
});

describe('listFiles', () => {
  it('lists most recently modified first, filtered by a glob, capped with a note', async () => {
    const now = Date.now() / 1000;
    await utimes(path.join(root, 'scripts/pay.py'), now + 100, now + 100);
    await utimes(path.join(root, 'src/deep/a/b/c/usage.ts'), now + 50, now + 50);
    const all = await listFiles(root, {});
    expect(all.files.slice(0, 2).map((f) => f.path)).toEqual(['scripts/pay.py', 'src/deep/a/b/c/usage.ts']);
    const ts = await listFiles(root, { pattern: '*.ts' });
    expect(ts.files[0].path).toBe('src/deep/a/b/c/usage.ts');
    expect(ts.files.map((f) => f.path).sort()).toEqual(['src/api/payment.ts', 'src/deep/a/b/c/usage.ts', 'test/payment.test.ts', 'unicode.ts']);
    const capped = await listFiles(root, { limit: 3 });
    expect(capped.files).toHaveLength(3);
    expect(formatListFiles(capped)).toContain(`Showing the 3 most recently modified of ${capped.total} files`);
    const scoped = await listFiles(root, { path: 'src', pattern: '*.tsx' });
    expect(scoped.files.map((f) => f.path)).toEqual(['src/components/PaymentForm.tsx']);
  });
});
