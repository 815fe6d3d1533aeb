// The model settings of `serve` and the app: the "llm" key of the user settings file
// (`<config dir>/settings.json`), readable only by its owner (0600), read and written through
// UserSettings, which keeps the file's other keys exactly as they are. In the desktop
// app the key is sealed with the OS keychain (Electron safeStorage) through a SecretCodec and
// kept as "api_key_enc"; elsewhere it is the plain "api_key" of that owner-only file.
import { UserSettings } from '../services/settings/userSettings';

export interface SavedLlmSettings {
  base_url?: string;
  api_key?: string;
  model?: string;
  context_tokens?: number;
}

/** Seals the API key at rest (Electron safeStorage); base64 text in, base64 text out. */
export interface SecretCodec {
  encrypt(plain: string): string;
  decrypt(sealed: string): string;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v : undefined);

export class LlmSettingsFile {
  readonly file: string;
  private readonly settings: UserSettings;

  constructor(
    configDir: string,
    private readonly codec?: SecretCodec,
  ) {
    this.settings = new UserSettings(configDir);
    this.file = this.settings.file;
  }

  async read(): Promise<SavedLlmSettings> {
    const all = await this.settings.document();
    const llm = (all?.llm ?? {}) as Record<string, unknown>;
    const n = Number(llm.context_tokens);
    const key = this.unseal(llm.api_key_enc) ?? str(llm.api_key);
    return {
      ...(str(llm.base_url) ? { base_url: str(llm.base_url) } : {}),
      ...(key ? { api_key: key } : {}),
      ...(str(llm.model) ? { model: str(llm.model) } : {}),
      ...(Number.isInteger(n) && n > 0 ? { context_tokens: n } : {}),
    };
  }

  private unseal(sealed: unknown): string | undefined {
    if (!this.codec || typeof sealed !== 'string' || !sealed) return undefined;
    try {
      return str(this.codec.decrypt(sealed));
    } catch {
      return undefined; // another user's or machine's keychain: as if no key were saved
    }
  }

  /** Merges into the "llm" key; undefined fields are removed, absent ones kept. */
  update(change: Partial<Record<keyof SavedLlmSettings, string | number | undefined>>): Promise<void> {
    return this.settings.update((all) => {
      const llm: Record<string, unknown> = { ...((all.llm as Record<string, unknown>) ?? {}) };
      for (const [k, v] of Object.entries(change)) {
        if (v === undefined) delete llm[k];
        else llm[k] = v;
      }
      if ('api_key' in change) {
        delete llm.api_key_enc;
        if (this.codec && typeof llm.api_key === 'string') {
          llm.api_key_enc = this.codec.encrypt(llm.api_key);
          delete llm.api_key;
        }
      }
      return { ...all, llm };
    });
  }
}
