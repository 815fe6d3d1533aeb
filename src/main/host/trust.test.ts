// The host's side of workspace trust: told on open, trusted only for the content the person
// saw, re-evaluated when the config changes on disk, and what the agent's gate then applies.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TrustView } from '../../shared/contract';
import { tempDir, until, writeTree } from '../../../test/support/tmp';
import { Host } from './host';

let dir: string;
let ws: string;
let cleanup: () => Promise<void>;
let host: Host;
let told: TrustView[];

const CONFIG = { permissions: [{ kind: 'bash', pattern: 'node *', action: 'allow' }, { kind: 'bash', pattern: 'rm *', action: 'deny' }], tests: { javascript: 'node t.js' } };

beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  ws = path.join(dir, 'cloned');
  await writeTree(ws, { '.loupe/config.json': JSON.stringify(CONFIG), 'a.txt': 'a\n' });
  host = new Host({ transport: 'websocket', configDir: path.join(dir, 'config') });
  told = [];
  let indexed = false;
  host.onEvent((ch, p) => {
    if (ch === 'trust.changed') told.push(p as TrustView);
    if (ch === 'tree.indexProgress' && (p as { done: boolean }).done) indexed = true;
  });
  await host.handle('workspace.open', { path: ws });
  // As a client does: the first listing starts the watcher, then the index (done: watched).
  await host.handle('tree.list', { dir: '' });
  await until(() => indexed);
});
afterEach(async () => {
  await host.dispose();
  await cleanup();
});

describe('workspace trust in the host', () => {
  it('tells the client on open what the untrusted config would allow', async () => {
    const first = await until(() => told[0]);
    expect(first).toEqual({
      root: ws,
      digest: expect.stringMatching(/^[0-9a-f]{64}$/),
      trusted: false,
      needed: true,
      declined: false,
      allow: [{ kind: 'bash', pattern: 'node *' }],
      tests: [{ language: 'javascript', command: 'node t.js' }],
      mcp_servers: [],
    });
    expect(await host.handle('trust.get', undefined)).toEqual(first);
  });

  it('trusts only the content the person saw; declining is remembered for that content', async () => {
    const { digest } = await host.handle('trust.get', undefined);
    expect((await host.handle('trust.accept', { digest: '0'.repeat(64) })).trusted).toBe(false);
    expect((await host.handle('trust.decline', { digest: digest! })).declined).toBe(true);
    const accepted = await host.handle('trust.accept', { digest: digest! });
    expect(accepted).toMatchObject({ trusted: true, declined: false });
    const settings = JSON.parse(await readFile(path.join(dir, 'config', 'settings.json'), 'utf8'));
    expect(settings.trusted_folders[ws].config_sha256).toBe(digest);
  });

  it('re-evaluates when the config changes on disk and tells the client', async () => {
    const { digest } = await host.handle('trust.get', undefined);
    await host.handle('trust.accept', { digest: digest! });
    told.length = 0;
    await writeFile(path.join(ws, '.loupe/config.json'), `${JSON.stringify(CONFIG)}\n`);
    const changed = await until(() => told.find((t) => t.digest !== digest), 5000);
    expect(changed).toMatchObject({ trusted: false, needed: true });
  });
});
