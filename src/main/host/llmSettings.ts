// The model settings of the app, `loupe serve` and `loupe run`: the "llm" key of the user
// settings file (`<config dir>/settings.json`), readable only by its owner (0600), read and written through
// UserSettings, which keeps the file's other keys exactly as they are. The API key
// goes to the OS keychain where this process can reach one (KeyStore) and the file only notes
// "api_key_store": "keychain"; elsewhere it is the plain "api_key" of that owner-only file.
// Either way every Loupe process run by the user finds it. A key an earlier desktop app sealed
// with Electron's safeStorage ("api_key_enc") only the app can open; it moves it on first read.
import { resolveLlmConfig, type LlmConfig, type LlmSettings, type ModelRow } from '../agent/llm/config';
import type { KeyStore } from '../services/settings/keyStore';
import type { LlmSection, UserSettings } from '../services/settings/userSettings';

export interface SavedLlmSettings {
  base_url?: string;
  api_key?: string;
  model?: string;
  context_tokens?: number;
  /** The model table: price and images by model name. */
  models?: Record<string, ModelRow>;
  /** Where the saved key lives, when one is saved. */
  key_where?: string;
  /** Why a saved key could not be read. */
  key_problem?: string;
}

export interface LlmSettingsChange {
  base_url?: string;
  model?: string;
  context_tokens?: number;
  models?: Record<string, ModelRow>;
  /** Present: replace the key (undefined removes it). Absent: keep it. */
  api_key?: string;
}

export interface LlmSettingsFileOptions {
  /** The OS keychain; null or absent: the key stays in the file. */
  keyStore?: KeyStore | null;
  /** The desktop app: opens a key an earlier version sealed with safeStorage. */
  unsealLegacy?: (sealed: string) => Promise<string>;
  /** Why there is no keychain, said beside the file that holds the key instead. */
  noKeyStore?: string;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v : undefined);

export const LEGACY_SEALED_KEY_PROBLEM =
  "An API key saved by an earlier Loupe desktop app is sealed with Electron's safeStorage, which only the app can open. " +
  'Start the desktop app once (it moves the key where `loupe serve` and `loupe run` find it), save the key again in Settings, or set OPENAI_API_KEY.';

export class LlmSettingsFile {
  readonly file: string;

  /** `settings`: the process's one reader and writer of settings.json (the composition root's). */
  constructor(
    private readonly settings: UserSettings,
    private readonly opts: LlmSettingsFileOptions = {},
  ) {
    this.file = this.settings.file;
  }

  /** Where a key saved in the file lives, said plainly. */
  private fileWhere(): string {
    const why = !this.opts.keyStore && this.opts.noKeyStore ? `; ${this.opts.noKeyStore}` : '';
    return `${this.file}, in plain text readable only by your user account${why}`;
  }

  async read(): Promise<SavedLlmSettings> {
    const llm = this.settings.llm();
    const key = await this.readKey(llm);
    return {
      ...(str(llm.base_url) ? { base_url: str(llm.base_url) } : {}),
      ...(str(llm.model) ? { model: str(llm.model) } : {}),
      ...(llm.context_tokens ? { context_tokens: llm.context_tokens } : {}),
      ...(llm.models && Object.keys(llm.models).length ? { models: llm.models } : {}),
      ...key,
    };
  }

  private async readKey(llm: LlmSection): Promise<Pick<SavedLlmSettings, 'api_key' | 'key_where' | 'key_problem'>> {
    if (llm.api_key_store === 'keychain') {
      const store = this.opts.keyStore;
      if (!store) return { key_where: 'the OS keychain', key_problem: 'The API key was saved in the OS keychain, which this process cannot reach. Save it again in Settings, or set OPENAI_API_KEY.' };
      try {
        const key = str(await store.get());
        return key ? { api_key: key, key_where: store.where } : { key_where: store.where, key_problem: `No API key was found in ${store.where}. Save it again in Settings.` };
      } catch (err) {
        return { key_where: store.where, key_problem: (err as Error).message };
      }
    }
    const plain = str(llm.api_key);
    if (plain) return { api_key: plain, key_where: this.fileWhere() };
    const sealed = str(llm.api_key_enc);
    if (!sealed) return {};
    if (!this.opts.unsealLegacy) return { key_where: `${this.file} (sealed by the desktop app)`, key_problem: LEGACY_SEALED_KEY_PROBLEM };
    let key: string | undefined;
    try {
      key = str(await this.opts.unsealLegacy(sealed));
    } catch {
      key = undefined; // another user's or machine's keychain: as if no key were saved
    }
    if (!key) return {};
    try {
      await this.update({ api_key: key });
      return this.readKey(this.settings.llm());
    } catch {
      return { api_key: key, key_where: `${this.file} (sealed by the desktop app)` };
    }
  }

  /** Merges into the "llm" key; undefined fields are removed, absent ones kept. */
  update(change: LlmSettingsChange): Promise<void> {
    return this.settings.update(async (all) => {
      const llm: Record<string, unknown> = { ...((all.llm as Record<string, unknown>) ?? {}) };
      for (const [k, v] of Object.entries(change)) {
        if (k === 'api_key') continue;
        if (v === undefined) delete llm[k];
        else llm[k] = v;
      }
      if ('api_key' in change) await this.placeKey(llm, change.api_key);
      return { ...all, llm };
    });
  }

  /** Puts the key in the keychain when there is one that works, else in the file. */
  private async placeKey(llm: Record<string, unknown>, key: string | undefined): Promise<void> {
    const store = this.opts.keyStore;
    const wasInKeychain = llm.api_key_store === 'keychain';
    delete llm.api_key;
    delete llm.api_key_enc;
    delete llm.api_key_store;
    if (key !== undefined && store) {
      try {
        await store.set(key);
        llm.api_key_store = 'keychain';
        return;
      } catch {
        // No keyring answered: the file keeps it, and Settings says where it is.
      }
    }
    if (key !== undefined) llm.api_key = key;
    else if (wasInKeychain && store) await store.delete().catch(() => undefined);
  }
}

/** Saved settings as the model config's explicit fields. */
export function savedAsLlmSettings(saved: SavedLlmSettings): LlmSettings {
  return { baseURL: saved.base_url, apiKey: saved.api_key, model: saved.model, contextTokens: saved.context_tokens, models: saved.models };
}

/** A positive whole number from an environment variable, else undefined. */
export function envInt(value: string | undefined): number | undefined {
  const n = Number(value);
  return value && Number.isInteger(n) && n > 0 ? n : undefined;
}

/**
 * The model for `loupe run` and `loupe mcp`: the user's settings (those the app saves, key
 * included), each field overridden by its environment variable. `note` hears why a saved key
 * could not be read.
 */
export async function llmConfigFromSettings(file: LlmSettingsFile, env: NodeJS.ProcessEnv, note: (s: string) => void): Promise<LlmConfig | null> {
  const saved = await file.read();
  if (saved.key_problem && !env.OPENAI_API_KEY) note(saved.key_problem);
  const fromEnv = (v: string | undefined) => v?.trim() || undefined;
  return resolveLlmConfig(
    {
      baseURL: fromEnv(env.OPENAI_BASE_URL) ?? saved.base_url,
      apiKey: fromEnv(env.OPENAI_API_KEY) ?? saved.api_key,
      model: fromEnv(env.LOUPE_MODEL) ?? saved.model,
      contextTokens: envInt(env.LOUPE_CONTEXT_TOKENS) ?? saved.context_tokens,
      models: saved.models,
    },
    {},
  );
}
