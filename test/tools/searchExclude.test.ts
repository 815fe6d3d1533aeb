// `search.exclude` in .loupe/config.json: every search tool skips those globs, and a change to
// the file applies to the next call.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { harness, type Harness } from '../support/toolHarness';

let h: Harness;
beforeEach(async () => {
  h = await harness();
  await h.write('src/app.ts', 'export function needle() { return 1; }\n');
  await h.write('generated/api.ts', 'export function needle() { return 2; }\n');
  await h.write('vendor/lib.min.js', 'function needle(){}\n');
});
afterEach(() => h.cleanup());

const paths = (r: { data?: Record<string, unknown> }) => JSON.stringify(r.data);

it('grep, list_files and code_search skip the configured globs', async () => {
  const before = await h.call('grep', { pattern: 'needle', output_mode: 'files_with_matches' });
  expect(paths(before)).toContain('generated/api.ts');

  await h.write('.loupe/config.json', JSON.stringify({ search: { exclude: ['generated/**', '*.min.js'] } }));
  const grep = await h.call('grep', { pattern: 'needle', output_mode: 'files_with_matches' });
  expect(grep.ok).toBe(true);
  expect(paths(grep)).toContain('src/app.ts');
  expect(paths(grep)).not.toContain('generated/');
  expect(paths(grep)).not.toContain('lib.min.js');
  // An explicit glob does not bring an excluded file back.
  expect(paths(await h.call('grep', { pattern: 'needle', glob: 'generated/*.ts' }))).not.toContain('generated/api.ts');

  const list = await h.call('list_files', {});
  expect(list.output).toContain('src/app.ts');
  expect(list.output).not.toContain('generated/api.ts');
  expect(list.output).not.toContain('lib.min.js');

  const code = await h.call('code_search', { pattern: 'needle', exclude_patterns: ['src'] });
  expect(code.ok).toBe(true);
  expect(paths(code)).not.toContain('generated/api.ts');
  expect(paths(code)).not.toContain('src/app.ts');
});
