// Loupe's own `loupe mcp` as a configured server of another Loupe workspace: a call crosses both,
// and the inner Loupe's approval reaches the outer person as an elicitation card (accepting it
// answers with the form's defaults: allow once). Needs `npm run build`.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkspaceServices } from '../../src/main/workspace/compose';
import { BIN, ROOT } from '../support/cli';
import { writeServers } from '../support/mcpServers';
import { testServices } from '../support/services';
import { tempDir, until } from '../support/tmp';
import { writeUserSettings } from '../support/userSettings';

let t: { dir: string; cleanup: () => Promise<void> };
let services: WorkspaceServices | null = null;
beforeAll(async () => {
  if (!existsSync(path.join(ROOT, 'out/main/cli.js'))) throw new Error('loupe is not built: run `npm run build` before this test.');
  t = await tempDir('loupe-mcp-nested-');
});
afterAll(async () => {
  await services?.dispose();
  await t?.cleanup();
});

describe('loupe mcp as a server of another Loupe', () => {
  it("a call crosses both; the inner Loupe's question is the outer person's card", async () => {
    const outer = path.join(t.dir, 'outer');
    const inner = path.join(t.dir, 'inner');
    const outerHome = path.join(t.dir, 'outer-home');
    const innerHome = path.join(t.dir, 'inner-home');
    for (const d of [outer, inner]) mkdirSync(d);
    // The inner Loupe asks for every command (no sandbox to contain them), so its question must travel.
    writeUserSettings(innerHome, { sandbox: 'off' });
    writeServers(
      outerHome,
      {
        // Outside the outer sandbox (the person's own setting): the inner Loupe works in a folder of its own.
        inner: { command: process.execPath, args: [BIN, 'mcp', '--cwd', inner], env: { LOUPE_HOME: innerHome, LOUPE_KEYCHAIN: 'off' }, sandbox: false },
      },
      { permissions: [{ kind: 'mcp', pattern: 'inner/*', action: 'allow' }] },
    );
    services = testServices(outer, { configDir: outerHome, asker: { kind: 'person' } });
    await services.mcp.sync();
    const view = services.mcp.list()[0]!;
    expect(view, view.detail ?? '').toMatchObject({ status: 'ready', sandboxed: false });
    expect(view.tools).toEqual(expect.arrayContaining(['bash', 'read_file', 'code_modify']));

    const call = services.mcp.call('inner', 'bash', { command: 'echo crossed > crossed.txt', description: 'Write a file' }, { signal: new AbortController().signal });
    const card = await until(() => services!.queue.list()[0], 30_000);
    expect(card).toMatchObject({ kind: 'elicitation', tool: 'inner' });
    expect(card.summary).toContain('echo crossed > crossed.txt');
    expect(existsSync(path.join(inner, 'crossed.txt'))).toBe(false);
    services.queue.answer(card.id, { answer: 'once' });
    const r = await call;
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    expect(readFileSync(path.join(inner, 'crossed.txt'), 'utf8')).toBe('crossed\n');
  }, 90_000);
});
