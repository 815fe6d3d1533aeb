// A server left unused is stopped (its process gone, the status says why) and starts again on the
// next use. A minimal LSP server stands in for a real one: only the idle clock is under test.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { nullLogger } from '../../src/main/services/log/logger';
import { LanguageServers } from '../../src/main/services/lsp/languageServers';
import type { LspSettings } from '../../src/main/services/lsp/serverTable';
import { tempDir, until } from '../support/tmp';

// Answers initialize and shutdown; on each open or change publishes no problems for that version.
const SERVER = `
let buf = Buffer.alloc(0);
const send = (m) => { const b = Buffer.from(JSON.stringify({ jsonrpc: '2.0', ...m })); process.stdout.write('Content-Length: ' + b.length + '\\r\\n\\r\\n'); process.stdout.write(b); };
process.stdin.on('data', (d) => {
  buf = Buffer.concat([buf, d]);
  for (;;) {
    const end = buf.indexOf('\\r\\n\\r\\n');
    if (end < 0) return;
    const len = Number(/Content-Length: (\\d+)/i.exec(buf.subarray(0, end).toString())[1]);
    if (buf.length < end + 4 + len) return;
    const m = JSON.parse(buf.subarray(end + 4, end + 4 + len).toString());
    buf = buf.subarray(end + 4 + len);
    if (m.method === 'initialize') send({ id: m.id, result: { capabilities: { textDocumentSync: 1 } } });
    else if (m.method === 'shutdown') send({ id: m.id, result: null });
    else if (m.method === 'exit') process.exit(0);
    else if (m.method === 'textDocument/didOpen' || m.method === 'textDocument/didChange') send({ method: 'textDocument/publishDiagnostics', params: { uri: m.params.textDocument.uri, version: m.params.textDocument.version, diagnostics: [] } });
    else if (m.id !== undefined) send({ id: m.id, result: null });
  }
});
`;

let cleanup: (() => Promise<void>) | null = null;
let servers: LanguageServers | null = null;
afterEach(async () => {
  await servers?.dispose();
  await cleanup?.();
  servers = null;
  cleanup = null;
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

it('an idle server is stopped, and the next use starts it again', async () => {
  const tmp = await tempDir('loupe-lsp-idle-');
  cleanup = tmp.cleanup;
  const script = path.join(tmp.dir, 'server.cjs');
  await writeFile(script, SERVER);
  const settings: LspSettings = { enabled: true, off: [], configured: { fake: { command: [process.execPath, script], extensions: ['.fake'] } }, trusted: true, sandboxed: false, denyRead: [] };
  servers = new LanguageServers({ root: tmp.dir, logger: nullLogger, settings: async () => settings, idleMs: 500, watchMs: 50 });
  const ls = servers;

  expect(await ls.problemsOf('a.fake', 'one\n')).toEqual({ server: 'server.cjs', problems: [] });
  // Its pid, whether or not the idle clock has already run out.
  const first = ls.status().find((s) => s.language === 'fake')!;
  expect(first.pid).toBeGreaterThan(0);
  const stopped = await until(() => ls.status().find((s) => s.language === 'fake' && s.state === 'stopped'), 20_000);
  expect(stopped.message).toMatch(/^idle for/);
  await until(() => !alive(first.pid!), 20_000);

  expect(await ls.problemsOf('a.fake', 'two\n')).toEqual({ server: 'server.cjs', problems: [] });
  expect(ls.started).toBe(2);
  expect(ls.status().find((s) => s.language === 'fake')).toMatchObject({ state: 'ready' });
}, 60_000);
