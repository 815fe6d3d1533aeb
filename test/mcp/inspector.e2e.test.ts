// The MCP Inspector (a client nobody here wrote) lints the tool schemas `loupe mcp` publishes with
// --strict: zero errors and zero warnings, because both go through portableSchema. Needs
// `npm run build` and Node 22 (test/support/node22.ts).
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT } from '../support/cli';
import { findings, inspectTools, node22 } from '../support/node22';
import { tempDir } from '../support/tmp';
import { mcpTool, mcpTools } from '../../src/main/agent/tools/mcpTool';
import { createToolRegistry } from '../../src/main/agent/tools/registry';
import { everythingStdio, filesystemStdio, FIXTURES, writeServers } from '../support/mcpServers';
import { testServices } from '../support/services';

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

/** What servers emit that strict clients reject: a tuple with items: false, a bare {}, a type list, a boolean schema. */
const HOSTILE = {
  name: 'hostile',
  description: 'A schema of the constructs strict clients reject',
  inputSchema: { type: 'object', properties: { pair: { type: 'array', items: [{ type: 'integer' }, { type: 'integer' }], additionalItems: false }, any: {}, either: { type: ['string', 'null'] }, never: false } },
};

describe.skipIf('skip' in node)('MCP Inspector --strict against server tools as Loupe offers them', () => {
  it("server-everything's and server-filesystem's tools, and a hostile one, sanitised: nothing to report (the hostile one raw: findings)", async () => {
    const ws = path.join(t.dir, 'ws');
    const home = path.join(t.dir, 'servers-home');
    writeServers(home, { everything: everythingStdio(), fs: filesystemStdio(ws) });
    const services = testServices(ws, { configDir: home });
    try {
      await services.mcp.sync();
      const registry = createToolRegistry();
      // What the model is offered: the servers' listed tools (a family of names is never offered).
      const listed = createToolRegistry().withTools(() => mcpTools(services.mcp)).list().filter((x) => x.name.startsWith('mcp__'));
      const tools = [...listed, mcpTool(services.mcp, 'odd', HOSTILE as never)];
      expect(tools.length).toBeGreaterThan(20);
      const offered = tools.map((x) => ({ name: x.name, description: x.description, inputSchema: registry.inputSchema(x) }));
      const sanitised = path.join(t.dir, 'sanitised.json');
      const raw = path.join(t.dir, 'raw.json');
      writeFileSync(sanitised, JSON.stringify(offered));
      writeFileSync(raw, JSON.stringify([HOSTILE]));
      const bin = (node as { bin: string }).bin;
      const clean = await inspectTools(bin, path.join(t.dir, 'home'), [process.execPath, path.join(FIXTURES, 'replayTools.cjs'), sanitised], ws);
      expect(findings(clean.stderr), clean.stderr).toEqual([]);
      expect(clean.code, clean.stderr).toBe(0);
      expect((JSON.parse(clean.stdout) as { tools: unknown[] }).tools).toHaveLength(offered.length);
      // The check bites: the same hostile schema, unsanitised, is reported.
      const dirty = await inspectTools(bin, path.join(t.dir, 'home'), [process.execPath, path.join(FIXTURES, 'replayTools.cjs'), raw], ws);
      expect(findings(dirty.stderr).length, dirty.stderr).toBeGreaterThan(0);
    } finally {
      await services.dispose();
    }
  }, 180_000);
});
