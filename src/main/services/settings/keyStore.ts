// Where the model's API key is kept, so the desktop app, `loupe serve` and `loupe run` all read
// the one the user saved. The OS keychain where a plain process can reach it: the macOS
// Keychain through /usr/bin/security, the Secret Service (GNOME Keyring, KWallet) through
// secret-tool. Elsewhere there is none (null), and the key stays in the owner-only settings file.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { onPath } from '../shell/onPath';
import { LoupeError } from '../../errors';

export class KeyStoreError extends LoupeError {
  constructor(
    readonly store: string,
    detail: string,
  ) {
    super('INTERNAL', `${store} could not be used (${detail}). Unlock or start your keyring and try again, or set OPENAI_API_KEY.`);
  }
}

export interface KeyStore {
  /** Where a saved key lives, in words for the settings dialog. */
  readonly where: string;
  get(): Promise<string | undefined>;
  set(key: string): Promise<void>;
  delete(): Promise<void>;
}

const SERVICE = 'loupe';
const TIMEOUT_MS = 30_000; // a locked keyring may ask the user to unlock it

/** What one keychain entry holds: its account's prefix and its label. The API key by default. */
export interface KeyItem {
  prefix: string;
  label: string;
}

export const API_KEY_ITEM: KeyItem = { prefix: 'api-key', label: 'Loupe API key' };

/** A remote MCP server's sign-in (its client and tokens), one entry per server URL. */
export const mcpSignInItem = (url: string): KeyItem => ({ prefix: `mcp-${createHash('sha256').update(url).digest('hex').slice(0, 12)}`, label: 'Loupe MCP sign-in' });

/** One entry per config folder, so an isolated Loupe home (LOUPE_HOME) keeps its own key. */
export function keyAccount(configDir: string, item: KeyItem = API_KEY_ITEM): string {
  return `${item.prefix}-${createHash('sha256').update(path.resolve(configDir)).digest('hex').slice(0, 12)}`;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], input: string | null, env?: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = execFile(command, args, { timeout: TIMEOUT_MS, env, encoding: 'utf8', maxBuffer: 1024 * 1024 }, (err, stdout, stderr) => {
      const code = (err as (Error & { code?: unknown }) | null)?.code;
      if (err && typeof code !== 'number') return reject(err); // could not run at all, or timed out
      resolve({ code: typeof code === 'number' ? code : 0, stdout, stderr });
    });
    // A tool that exits before reading its input (missing, refused, crashed) closes the pipe:
    // its exit code says what happened, so the EPIPE on our write is not an error of its own.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(input ?? '');
  });
}

const firstLine = (s: string): string => s.split('\n').find((l) => l.trim())?.trim() ?? '';

/** A keychain reached through a command-line tool; the key travels on stdin and stdout only. */
abstract class ToolKeyStore implements KeyStore {
  constructor(
    readonly where: string,
    protected readonly account: string,
    private readonly command: string,
    private readonly env?: NodeJS.ProcessEnv,
    protected readonly label = API_KEY_ITEM.label,
  ) {}

  abstract get(): Promise<string | undefined>;
  abstract set(key: string): Promise<void>;
  abstract delete(): Promise<void>;

  protected async exec(args: string[], input: string | null): Promise<Run> {
    try {
      return await run(this.command, args, input, this.env);
    } catch (err) {
      throw new KeyStoreError(this.where, (err as Error).message);
    }
  }

  protected fail(r: Run): KeyStoreError {
    return new KeyStoreError(this.where, firstLine(r.stderr) || `exit ${r.code}`);
  }
}

/** The macOS Keychain, through the `security` tool. */
export class MacKeychain extends ToolKeyStore {
  constructor(account: string, command = '/usr/bin/security', env?: NodeJS.ProcessEnv, label?: string) {
    super(`the macOS Keychain (item "${SERVICE}", account "${account}")`, account, command, env, label);
  }

  async get(): Promise<string | undefined> {
    const r = await this.exec(['find-generic-password', '-s', SERVICE, '-a', this.account, '-w'], null);
    if (r.code === 44) return undefined; // errSecItemNotFound
    if (r.code !== 0) throw this.fail(r);
    return r.stdout.replace(/\n$/, '') || undefined;
  }

  async set(key: string): Promise<void> {
    // `security -i` reads commands from stdin; -X takes the secret as hex, so no quoting issues.
    const hex = Buffer.from(key, 'utf8').toString('hex');
    const r = await this.exec(['-i'], `add-generic-password -U -s ${SERVICE} -a ${this.account} -l "${this.label}" -X ${hex}\n`);
    if (r.code !== 0 || /error|fail/i.test(r.stderr)) throw this.fail(r);
  }

  async delete(): Promise<void> {
    const r = await this.exec(['delete-generic-password', '-s', SERVICE, '-a', this.account], null);
    if (r.code !== 0 && r.code !== 44) throw this.fail(r);
  }
}

/** The freedesktop Secret Service (GNOME Keyring, KWallet), through libsecret's `secret-tool`. */
export class SecretServiceKeyring extends ToolKeyStore {
  constructor(account: string, command = 'secret-tool', env?: NodeJS.ProcessEnv, label?: string) {
    super(`your login keyring through the Secret Service (secret-tool lookup service ${SERVICE} account ${account})`, account, command, env, label);
  }

  async get(): Promise<string | undefined> {
    const r = await this.exec(['lookup', 'service', SERVICE, 'account', this.account], null);
    // secret-tool exits 1 with no output when nothing is stored.
    if (r.code !== 0) {
      if (!r.stderr.trim()) return undefined;
      throw this.fail(r);
    }
    return r.stdout.replace(/\n$/, '') || undefined;
  }

  async set(key: string): Promise<void> {
    const r = await this.exec(['store', `--label=${this.label}`, 'service', SERVICE, 'account', this.account], key);
    if (r.code !== 0) throw this.fail(r);
  }

  async delete(): Promise<void> {
    const r = await this.exec(['clear', 'service', SERVICE, 'account', this.account], null);
    if (r.code !== 0 && r.stderr.trim()) throw this.fail(r);
  }
}

/**
 * The OS keychain this process can use, or null (Windows, Linux without secret-tool, or
 * LOUPE_KEYCHAIN=off): then the key stays in the settings file and the app says so.
 */
export function systemKeyStore(configDir: string, platform: NodeJS.Platform = process.platform, env: NodeJS.ProcessEnv = process.env, item: KeyItem = API_KEY_ITEM): KeyStore | null {
  if (env.LOUPE_KEYCHAIN === 'off') return null;
  const account = keyAccount(configDir, item);
  if (platform === 'darwin') return new MacKeychain(account, undefined, undefined, item.label);
  if (platform === 'win32') return null;
  // Whether a keyring answers shows on the first save: a failed one leaves the key in the file.
  const tool = onPath('secret-tool', env, platform);
  return tool ? new SecretServiceKeyring(account, tool, env, item.label) : null;
}

/** The keychain to use and, when there is none, why: the settings dialog says it beside the file. */
export function systemKeys(
  configDir: string,
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
): { keyStore: KeyStore | null; noKeyStore?: string } {
  const keyStore = systemKeyStore(configDir, platform, env);
  if (keyStore) return { keyStore };
  if (env.LOUPE_KEYCHAIN === 'off') return { keyStore, noKeyStore: 'LOUPE_KEYCHAIN=off keeps it there' };
  if (platform === 'win32') return { keyStore, noKeyStore: 'Loupe cannot use the Windows Credential Manager yet' };
  return { keyStore, noKeyStore: 'no keychain was found: install secret-tool (libsecret-tools) with a running keyring to keep it there' };
}
