// The MCP Inspector (a client nobody here wrote) lints the tool schemas `loupe mcp` publishes with
// --strict: zero errors and zero warnings, because both go through portableSchema. Needs
// `npm run build` and Node 22 (test/support/node22.ts).
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT } from '../support/cli';
import { findings, inspectTools, node22 } from '../support/node22';
import { tempDir } from '../support/tmp';

const node = node22();
if ('skip' in node) process.stdout.write(`mcp inspector test skipped: ${node.skip}\n`);

let t: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  if (!existsSync(path.join(ROOT, 'out/main/cli.js'))) throw new Error('loupe is not built: run `npm run build` before this test.');
  t = await tempDir('loupe-inspector-');
  mkdirSync(path.join(t.dir, 'home'));
  mkdirSync(path.join(t.dir, 'ws'));
});
afterAll(() => t?.cleanup());

describe.skipIf('skip' in node)('MCP Inspector --strict against loupe mcp', () => {
  it('lists every tool and finds nothing to report', async () => {
    const ws = path.join(t.dir, 'ws');
    const r = await inspectTools((node as { bin: string }).bin, path.join(t.dir, 'home'), [process.execPath, BIN, 'mcp', '--cwd', ws], ws);
    expect(findings(r.stderr), r.stderr).toEqual([]);
    expect(r.stderr).not.toMatch(/\d+ errors?, \d+ warnings?/);
    expect(r.code, r.stderr).toBe(0);
    const tools = (JSON.parse(r.stdout) as { tools: { name: string }[] }).tools.map((x) => x.name);
    expect(tools).toEqual(expect.arrayContaining(['read_file', 'code_modify', 'bash', 'process_wait']));
  }, 120_000);
});
