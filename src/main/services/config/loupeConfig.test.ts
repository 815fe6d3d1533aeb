// .loupe/config.json: the whole file validated; problems carry line and column.
import { writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/support/tmp';
import { LoupeConfigFile, parseLoupeConfig } from './loupeConfig';

let cleanup: (() => Promise<void>) | null = null;
afterEach(() => cleanup?.());

describe('.loupe/config.json', () => {
  it('accepts a full example with every key', () => {
    const text = JSON.stringify({
      permissions: [{ kind: 'bash', pattern: 'npm run test:*', action: 'allow' }],
      edits: { mode: 'review' },
      tests: { typescript: 'npx vitest run', python: 'pytest -q', go: 'go test ./...' },
      languages: ['typescript', 'python', 'go'],
      search: { exclude: ['dist', '.next'] },
      limits: { max_file_bytes: 10485760, test_timeout_ms: 30000 },
    });
    expect(parseLoupeConfig(text)).toEqual({ config: JSON.parse(text), problems: [] });
  });

  it('reports a syntax error with its line and column', () => {
    expect(parseLoupeConfig('{\n  "tests": {\n    "go": "go test",\n  }\n}')).toMatchObject({ config: {}, problems: [{ line: 4, column: 3, message: expect.stringContaining('trailing comma') }] });
  });

  it('reports schema problems where they are written', () => {
    const text = '{\n  "edits": {"mode": "sometimes"},\n  "limits": {\n    "test_timeout_ms": -1\n  },\n  "colour": true\n}';
    const { config, problems } = parseLoupeConfig(text);
    expect(config).toEqual({});
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ line: 2, column: 13, message: expect.stringContaining('edits.mode') }),
        expect.objectContaining({ line: 4, column: 5, message: expect.stringContaining('limits.test_timeout_ms') }),
        expect.objectContaining({ line: 6, column: 3 }),
      ]),
    );
  });

  it('loads from the workspace, re-reads on change, and never throws', async () => {
    const t = await tempDir();
    cleanup = t.cleanup;
    const file = new LoupeConfigFile(t.dir);
    expect(await file.load()).toEqual({ config: {}, problems: [] });
    await mkdir(path.join(t.dir, '.loupe'));
    await writeFile(path.join(t.dir, '.loupe/config.json'), '{"tests": ');
    expect((await file.load()).problems).toHaveLength(1);
    await writeFile(path.join(t.dir, '.loupe/config.json'), '{"tests": {"go": "go test ./..."}}');
    expect((await file.load()).config).toEqual({ tests: { go: 'go test ./...' } });
  });
});
