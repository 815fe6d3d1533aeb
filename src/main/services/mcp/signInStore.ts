// Where a remote MCP server's sign-in (its registered client and tokens) is kept: where the API key
// is (docs/security.md, "Secrets"). The OS keychain when one answers, the settings file noting only
// `"store": "keychain"` for that server; else the owner-only settings file itself. Never a project
// file. A keychain that cannot be read leaves the server signed out: it asks to sign in again.
import type { KeyStore } from '../settings/keyStore';
import type { UserSettings } from '../settings/userSettings';
import type { SignInStore } from './signIn';

type SignIn = { client?: Record<string, unknown>; tokens?: Record<string, unknown> };

export class McpSignInStore implements SignInStore {
  /** Saves one after another: a refresh and a registration never lose each other's part. */
  private chain: Promise<unknown> = Promise.resolve();
  /** What the keychain holds, read once: the transport asks for the tokens on every request, and each keychain read runs a program. */
  private readonly held = new Map<string, SignIn>();

  /** `keychain(url)`: the entry for that server's sign-in, null where there is no keychain. */
  constructor(
    private readonly user: UserSettings,
    private readonly keychain: (url: string) => KeyStore | null,
  ) {}

  async mcpSignIn(url: string): Promise<SignIn> {
    const saved = await this.user.mcpSignIn(url);
    if (saved.store !== 'keychain') return pick(saved);
    const held = this.held.get(url);
    if (held) return held;
    try {
      const text = await this.keychain(url)?.get();
      const read = text ? pick(JSON.parse(text) as Record<string, unknown>) : {};
      this.held.set(url, read);
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
          this.held.set(url, next);
          return await this.user.setMcpSignIn(url, { store: 'keychain' });
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
