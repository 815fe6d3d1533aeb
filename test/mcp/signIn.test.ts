// A remote server's sign-in is kept where the API key is (docs/security.md, "The API key at rest"): the
// keychain when one answers, the owner-only settings file otherwise, never a file of the
// workspace. A real sign-in (discovery, dynamic registration, PKCE, tokens) against the SDK's
// authorization server, through the composition root, with the stand-in keyring on the PATH.
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WorkspaceServices } from '../../src/main/workspace/compose';
import { writeServers } from '../support/mcpServers';
import { testServices } from '../support/services';
import { startSignInMcpServer, type SignInMcpServer } from '../support/signInMcpServer';
import { standInKeyring, type StandInKeyring } from '../support/standInKeyring';
import { tempWorkspace, type TempWorkspace, until, writeTree } from '../support/tmp';

let t: TempWorkspace;
let root: string;
let home: string;
let ring: StandInKeyring;
let remote: SignInMcpServer;
let services: WorkspaceServices | null = null;
beforeEach(async () => {
  t = await tempWorkspace('loupe-mcp-signin-');
  ({ root, home } = t);
  await writeTree(root, { 'README.md': 'hello\n', '.mcp.json': '{ "mcpServers": {} }\n' });
  ring = standInKeyring(path.join(t.dir, 'ring'));
  remote = await startSignInMcpServer();
});
afterEach(async () => {
  await services?.dispose();
  services = null;
  await remote.close();
  await t.cleanup();
});

/** Every file under `dir` whose bytes contain `needle`. */
async function filesHolding(dir: string, needle: string): Promise<string[]> {
  const found: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    const file = path.join(e.parentPath, e.name);
    if ((await readFile(file, 'latin1')).includes(needle)) found.push(path.relative(t.dir, file));
  }
  return found;
}

async function signIn(env: NodeJS.ProcessEnv): Promise<string> {
  writeServers(home, { signed: { url: remote.url } });
  services = testServices(root, { configDir: home, env: { ...env, LOUPE_TEST_OAUTH_CONSENT: 'follow' } });
  await services.mcp.sync();
  await until(() => services!.mcp.list()[0]?.status === 'ready', 20_000);
  expect(services.mcp.list()[0]).toMatchObject({ name: 'signed', tools: ['whoami'] });
  const [token] = remote.issued();
  expect(token).toBeTruthy();
  return token!;
}

const settingsOf = async () => JSON.parse(await readFile(path.join(home, 'settings.json'), 'utf8')) as { mcp_oauth?: Record<string, Record<string, unknown>> };

describe('a remote server’s sign-in', () => {
  // compose picks the keychain by this process's platform: the Secret Service (secret-tool) on Linux.
  it.runIf(process.platform === 'linux')('goes to the keychain when one answers: the settings only say so, the workspace never holds it', async () => {
    const token = await signIn({ ...ring.env, LOUPE_KEYCHAIN: undefined });
    expect((await settingsOf()).mcp_oauth).toEqual({ [remote.url]: { store: 'keychain', rev: expect.any(String) } });
    expect(await filesHolding(path.join(t.dir, 'ring'), token)).toHaveLength(1);
    expect(await filesHolding(home, token)).toEqual([]);
    expect(await filesHolding(root, token)).toEqual([]);
    // The token travels on stdin and stdout only, never on a command line.
    expect(ring.argvLog()).not.toContain(token);
    expect(ring.argvLog()).toContain('Loupe MCP sign-in');
  }, 30_000);

  it('stays in the owner-only settings file where there is no keychain, never in the workspace', async () => {
    const token = await signIn({ ...process.env, LOUPE_KEYCHAIN: 'off' });
    const saved = (await settingsOf()).mcp_oauth?.[remote.url];
    expect(saved?.tokens).toMatchObject({ access_token: token });
    expect(saved?.client).toMatchObject({ client_id: expect.any(String) });
    expect((await stat(path.join(home, 'settings.json'))).mode & 0o777).toBe(0o600);
    expect(await filesHolding(root, token)).toEqual([]);
  }, 30_000);
});
