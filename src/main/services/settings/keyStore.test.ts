import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { standInKeyring, type StandInKeyring } from '../../../../test/support/standInKeyring';
import { tempDir } from '../../../../test/support/tmp';
import { keyAccount, KeyStoreError, MacKeychain, mcpSignInItem, SecretServiceKeyring, systemKeyStore, type KeyStore } from './keyStore';

let dir: string;
let cleanup: () => Promise<void>;
let ring: StandInKeyring;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir('loupe-keystore-'));
  ring = standInKeyring(dir);
});
afterEach(() => cleanup());

// Keys as users paste them: provider prefixes, and the odd quote, space or non-ASCII letter.
const keys = fc.oneof(
  fc.stringMatching(/^sk-[A-Za-z0-9_-]{8,60}$/),
  fc.string({ minLength: 1, maxLength: 40 }).filter((s) => s.trim() === s && s.trim() !== '' && !s.includes('\0')),
);

for (const [name, make] of [
  ['SecretServiceKeyring (secret-tool)', (env: NodeJS.ProcessEnv) => new SecretServiceKeyring(keyAccount(dir), ring.secretTool, env)],
  ['MacKeychain (security)', (env: NodeJS.ProcessEnv) => new MacKeychain(keyAccount(dir), ring.security, env)],
] as const) {
  describe(name, () => {
    it('stores, reads back and clears any key, never on a command line', async () => {
      const s: KeyStore = make(ring.env);
      expect(await s.get()).toBeUndefined();
      const stored: string[] = [];
      await fc.assert(
        fc.asyncProperty(keys, async (key) => {
          await s.set(key);
          expect(await s.get()).toBe(key);
          stored.push(key);
        }),
        { numRuns: 8 },
      );
      const argv = ring.argvLog();
      for (const key of stored.filter((k) => k.length >= 8)) expect(argv).not.toContain(JSON.stringify(key).slice(1, -1));
      await s.delete();
      expect(await s.get()).toBeUndefined();
      await s.delete(); // nothing to delete is fine
    });

    it('says which keyring failed and what to do', async () => {
      const locked = make({ ...ring.env, STANDIN_KEYRING_LOCKED: '1' });
      await expect(locked.set('sk-x')).rejects.toBeInstanceOf(KeyStoreError);
      await expect(locked.set('sk-x')).rejects.toThrow(/locked collection.*Unlock or start your keyring/);
    });
  });
}

describe('a keyring tool that exits without reading the key', () => {
  it('is a KeyStoreError, not a crash on the closed pipe (EPIPE)', async () => {
    // `false` exits at once; a key bigger than a pipe's buffer is still being written then.
    const store = new SecretServiceKeyring(keyAccount(dir), 'false', ring.env);
    for (let i = 0; i < 5; i++) await expect(store.set(`sk-${'x'.repeat(1 << 20)}`)).rejects.toBeInstanceOf(KeyStoreError);
  });
});

describe('systemKeyStore', () => {
  it('uses secret-tool where it is on the PATH, the Keychain on macOS, and none on Windows', () => {
    expect(systemKeyStore(dir, 'linux', ring.env)).toBeInstanceOf(SecretServiceKeyring);
    expect(systemKeyStore(dir, 'linux', { PATH: path.join(dir, 'nothing-here') })).toBeNull();
    expect(systemKeyStore(dir, 'darwin', {})).toBeInstanceOf(MacKeychain);
    expect(systemKeyStore(dir, 'win32', ring.env)).toBeNull();
    expect(systemKeyStore(dir, 'linux', { ...ring.env, LOUPE_KEYCHAIN: 'off' })).toBeNull();
    expect(systemKeyStore(dir, 'darwin', { LOUPE_KEYCHAIN: 'off' })).toBeNull();
  });

  it('keeps one entry per config folder', () => {
    expect(keyAccount('/home/u/.config/loupe')).toBe(keyAccount('/home/u/.config/loupe/'));
    expect(keyAccount('/home/u/.config/loupe')).not.toBe(keyAccount('/tmp/loupe-home'));
    expect(keyAccount('/home/u/.config/loupe')).toMatch(/^api-key-[0-9a-f]{12}$/);
    // A remote MCP server's sign-in: its own entry per server URL, beside the API key's.
    const a = keyAccount('/home/u/.config/loupe', mcpSignInItem('https://a.example/mcp'));
    expect(a).toMatch(/^mcp-[0-9a-f]{12}-[0-9a-f]{12}$/);
    expect(a).not.toBe(keyAccount('/home/u/.config/loupe', mcpSignInItem('https://b.example/mcp')));
  });
});
