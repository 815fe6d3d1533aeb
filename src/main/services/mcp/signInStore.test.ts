// The sign-in store of remote MCP servers: the keychain first, the owner-only settings file when
// no keyring answers (as the API key), a refresh replacing the tokens and keeping the client.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { standInKeyring, type StandInKeyring } from '../../../../test/support/standInKeyring';
import { tempDir } from '../../../../test/support/tmp';
import { keyAccount, mcpSignInItem, SecretServiceKeyring } from '../settings/keyStore';
import { UserSettings } from '../settings/userSettings';
import { McpSignInStore } from './signInStore';

const URL_A = 'https://mcp.example.com/mcp';
let dir: string;
let cleanup: () => Promise<void>;
let ring: StandInKeyring;
let user: UserSettings;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir('loupe-signin-store-'));
  ring = standInKeyring(path.join(dir, 'ring'));
  user = new UserSettings(path.join(dir, 'home'));
});
afterEach(() => cleanup());

const keyring = (env: NodeJS.ProcessEnv) => (url: string) => new SecretServiceKeyring(keyAccount(path.join(dir, 'home'), mcpSignInItem(url)), ring.secretTool, env);
const fileText = () => readFile(user.file, 'utf8');

describe('McpSignInStore', () => {
  it('keeps client and tokens in the keychain, one entry per server; a refresh replaces the tokens and keeps the client', async () => {
    const store = new McpSignInStore(user, keyring(ring.env));
    await store.saveMcpSignIn(URL_A, { client: { client_id: 'client-one' } });
    await store.saveMcpSignIn(URL_A, { tokens: { access_token: 'at-first-123', refresh_token: 'rt-first-123' } });
    await store.saveMcpSignIn(URL_A, { tokens: { access_token: 'at-second-456', refresh_token: 'rt-second-456' } });
    // A fresh store (another process) reads it from the keychain.
    const again = new McpSignInStore(user, keyring(ring.env));
    expect(await again.mcpSignIn(URL_A)).toEqual({ client: { client_id: 'client-one' }, tokens: { access_token: 'at-second-456', refresh_token: 'rt-second-456' } });
    expect(await again.mcpSignIn('https://other.example.com/mcp')).toEqual({});
    expect(JSON.parse(await fileText())).toEqual({ mcp_oauth: { [URL_A]: { store: 'keychain', rev: expect.any(String) } } });
    // Another workspace (or process) refreshes: a store that had read the tokens reads the new ones.
    await store.saveMcpSignIn(URL_A, { tokens: { access_token: 'at-third-789' } });
    expect((await again.mcpSignIn(URL_A)).tokens).toEqual({ access_token: 'at-third-789' });
    expect(ring.argvLog()).not.toMatch(/at-|rt-/);
  });

  it('falls back to the settings file when the keyring does not answer, and moves back once it does', async () => {
    const locked = new McpSignInStore(user, keyring({ ...ring.env, STANDIN_KEYRING_LOCKED: '1' }));
    await locked.saveMcpSignIn(URL_A, { client: { client_id: 'client-one' }, tokens: { access_token: 'at-file-789' } });
    expect(await locked.mcpSignIn(URL_A)).toEqual({ client: { client_id: 'client-one' }, tokens: { access_token: 'at-file-789' } });
    expect(await fileText()).toContain('at-file-789');

    const open = new McpSignInStore(user, keyring(ring.env));
    await open.saveMcpSignIn(URL_A, { tokens: { access_token: 'at-ring-000' } });
    expect(await open.mcpSignIn(URL_A)).toEqual({ client: { client_id: 'client-one' }, tokens: { access_token: 'at-ring-000' } });
    // Nothing of the sign-in is left in the file once the keychain holds it (the names cannot occur
    // in the file's random `rev`, which a hex-like id such as 'c1' sometimes did).
    expect(await fileText()).not.toMatch(/at-file|at-ring|client-one/);
  });

  it('without a keychain keeps it in the file; a keychain entry it cannot read leaves the server signed out', async () => {
    const none = new McpSignInStore(user, () => null);
    await none.saveMcpSignIn(URL_A, { tokens: { access_token: 'at-plain-1' } });
    expect(await none.mcpSignIn(URL_A)).toEqual({ tokens: { access_token: 'at-plain-1' } });

    await new McpSignInStore(user, keyring(ring.env)).saveMcpSignIn(URL_A, { tokens: { access_token: 'at-ring-2' } });
    expect(await new McpSignInStore(user, keyring({ ...ring.env, STANDIN_KEYRING_LOCKED: '1' })).mcpSignIn(URL_A)).toEqual({});
    expect(await new McpSignInStore(user, () => null).mcpSignIn(URL_A)).toEqual({});
  });
});
