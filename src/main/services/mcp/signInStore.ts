// Where a remote MCP server's sign-in (its registered client and tokens) is kept: where the API key
// is (docs/security.md, "The API key at rest"). The OS keychain when one answers, the settings file
// noting only `"store": "keychain"` (and a revision) for that server; else the owner-only settings
// file itself. Never a project
// file. A keychain that cannot be read leaves the server signed out: it asks to sign in again.
import { randomUUID } from 'node:crypto';
import type { KeyStore } from '../settings/keyStore';
import type { UserSettings } from '../settings/userSettings';
import type { SignInStore } from './signIn';

type SignIn = { client?: Record<string, unknown>; tokens?: Record<string, unknown> };

export class McpSignInStore implements SignInStore {
  /** Saves one after another: a refresh and a registration never lose each other's part. */
  private chain: Promise<unknown> = Promise.resolve();
  /**
   * What the keychain holds, by server, with the `rev` the settings file named when it was read:
   * the transport asks for the tokens on every request and each keychain read runs a program, so
   * the keychain is read again only when another workspace or process saved since.
   */
  private readonly held = new Map<string, { rev: unknown; signIn: SignIn }>();

  /** `keychain(url)`: the entry for that server's sign-in, null where there is no keychain. */
  constructor(
    private readonly user: UserSettings,
    private readonly keychain: (url: string) => KeyStore | null,
  ) {}

  async mcpSignIn(url: string): Promise<SignIn> {
    const saved = await this.user.mcpSignIn(url);
    if (saved.store !== 'keychain') return pick(saved);
    const held = this.held.get(url);
    if (held && held.rev === saved.rev) return held.signIn;
    try {
      const text = await this.keychain(url)?.get();
      const read = text ? pick(JSON.parse(text) as Record<string, unknown>) : {};
      this.held.set(url, { rev: saved.rev, signIn: read });
      return read;
    } catch {
      return {};
    }
  }

  saveMcpSignIn(url: string, patch: SignIn): Promise<void> {
    const job = this.chain.catch(() => undefined).then(async () => {
      const next = { ...(await this.mcpSignIn(url)), ...patch };
      const store = this.keychain(url);
      if (store) {
        try {
          await store.set(JSON.stringify(next));
          const rev = randomUUID();
          this.held.set(url, { rev, signIn: next });
          return await this.user.setMcpSignIn(url, { store: 'keychain', rev });
        } catch {
          // No keyring answered: the owner-only file keeps it, as it keeps the API key then.
        }
      }
      await this.user.setMcpSignIn(url, next);
    });
    this.chain = job;
    return job;
  }
}

const obj = (v: unknown): Record<string, unknown> | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

function pick(v: Record<string, unknown>): SignIn {
  const client = obj(v.client);
  const tokens = obj(v.tokens);
  return { ...(client ? { client } : {}), ...(tokens ? { tokens } : {}) };
}
