// The model settings as the app shows them: the saved base URL, model, key and price table,
// each overridden field by field by the environment; the endpoint's facts; "Test connection".
// Knows nothing of sessions: a runner asks it for the model when a request starts.
import type { LlmProbe, LlmSettingsView, ModelFactsView, ModelSettingsRow, Params } from '../../shared/contract';
import { InvalidArgumentError } from '../errors';
import { LlmClient } from '../agent/llm/client';
import { resolveLlmConfig, type LlmConfig, type ModelRow } from '../agent/llm/config';
import { detectLocalServers, describeDetected } from '../agent/llm/detect';
import { NoModelError } from '../agent/llm/errors';
import type { ModelFacts } from '../agent/llm/modelFacts';
import { MODEL_PRESETS } from '../agent/llm/presets';
import { DEFAULT_BASE_URL, knownProfile } from '../agent/llm/profile';
import type { UserSettings } from '../services/settings/userSettings';
import { LlmSettingsFile, savedAsLlmSettings, type LlmSettingsFileOptions } from './llmSettings';

export interface ModelSettingsOptions {
  user: UserSettings;
  env: NodeJS.ProcessEnv;
  /** Where the API key is kept: the OS keychain, and the desktop app's reader of old sealed keys. */
  keys?: LlmSettingsFileOptions;
  /** The log file, shown in the settings dialog. */
  logFile?: string;
}

export class ModelSettings {
  private readonly file: LlmSettingsFile;

  constructor(private readonly opts: ModelSettingsOptions) {
    this.file = new LlmSettingsFile(opts.user, opts.keys);
  }

  private get env(): NodeJS.ProcessEnv {
    return this.opts.env;
  }

  /** The model to use now (a probe's fields over the saved ones, the environment over both); null when none is connected. */
  async config(probe?: LlmProbe | void): Promise<LlmConfig | null> {
    const saved = await this.file.read();
    const p = probe ?? {};
    const fromSaved = savedAsLlmSettings(saved);
    return resolveLlmConfig(
      {
        ...fromSaved,
        baseURL: p.base_url?.trim() || fromSaved.baseURL,
        apiKey: p.api_key || fromSaved.apiKey,
        model: p.model?.trim() || fromSaved.model,
      },
      this.env,
    );
  }

  /** Why a saved key cannot be used, when it cannot (said once by `loupe run`). */
  async keyProblem(): Promise<string | undefined> {
    const saved = await this.file.read();
    return saved.key_problem && !this.env.OPENAI_API_KEY ? saved.key_problem : undefined;
  }

  /** Throws the "no model" error, naming the local servers found on their usual ports. */
  async noModel(): Promise<never> {
    throw new NoModelError(describeDetected(await detectLocalServers({ timeoutMs: 300 })));
  }

  /**
   * The configured model's facts as known now; its server's /models is read in the background
   * (never awaited: settings are asked for while a folder opens), so the next answer has them.
   */
  private factsNow(config: LlmConfig): ModelFactsView {
    const client = new LlmClient(config, { timeoutMs: 10_000 });
    void client.serverModel().catch(() => undefined);
    return factsView(client.cachedFacts());
  }

  async view(): Promise<LlmSettingsView> {
    const saved = await this.file.read();
    const config = await this.config();
    const detected = await detectLocalServers({ timeoutMs: 300 });
    const models: ModelSettingsRow[] = Object.entries(saved.models ?? {}).map(([model, row]) => ({ model, ...row }));
    const fromSettings = Boolean(saved.base_url || saved.model);
    const profile = config ? knownProfile(config.baseURL ?? DEFAULT_BASE_URL)?.describe() : undefined;
    return {
      base_url: saved.base_url ?? this.env.OPENAI_BASE_URL ?? '',
      model: saved.model ?? this.env.LOUPE_MODEL ?? '',
      ...(saved.context_tokens ? { context_tokens: saved.context_tokens } : {}),
      models,
      ...(config ? { model_facts: this.factsNow(config) } : {}),
      presets: MODEL_PRESETS.map((p) => ({ ...p })),
      has_api_key: Boolean(saved.api_key || this.env.OPENAI_API_KEY),
      ...(saved.key_where ? { api_key_where: saved.key_where } : this.env.OPENAI_API_KEY ? { api_key_where: 'the OPENAI_API_KEY environment variable' } : {}),
      ...(saved.key_problem ? { api_key_problem: saved.key_problem } : {}),
      source: fromSettings ? 'settings' : this.env.LOUPE_MODEL || this.env.OPENAI_BASE_URL ? 'env' : 'none',
      configured: config !== null,
      detected: detected.map((d) => ({ name: d.name, base_url: d.baseURL, models: d.models })),
      ...(profile ? { endpoint_profile: profile } : {}),
      ...(this.opts.logFile ? { log_file: this.opts.logFile } : {}),
    };
  }

  async save(p: Params<'settings.save'>): Promise<LlmSettingsView> {
    if (typeof p?.base_url !== 'string' || typeof p.model !== 'string') throw new InvalidArgumentError('base_url and model must be strings');
    if (p.base_url.trim() && !/^https?:\/\//i.test(p.base_url.trim())) throw new InvalidArgumentError(`The base URL must start with http:// or https:// (got ${JSON.stringify(p.base_url)}).`);
    if (p.context_tokens !== undefined && p.context_tokens !== null && !(Number.isInteger(p.context_tokens) && p.context_tokens > 0)) {
      throw new InvalidArgumentError('context_tokens must be a positive whole number');
    }
    const models = p.models === undefined ? undefined : modelTable(p.models);
    await this.file.update({
      base_url: p.base_url.trim() || undefined,
      model: p.model.trim() || undefined,
      context_tokens: p.context_tokens || undefined,
      ...(models ? { models: Object.keys(models).length ? models : undefined } : {}),
      ...(p.api_key !== undefined ? { api_key: p.api_key || undefined } : {}),
    });
    return this.view();
  }

  private async probeClient(probe: LlmProbe | void): Promise<LlmClient> {
    const config = (await this.config(probe)) ?? (await this.config({ ...(probe ?? {}), model: 'unset' }));
    if (!config?.baseURL) throw new NoModelError();
    return new LlmClient(config, { timeoutMs: 10_000, retry: { maxRetries: 0 } });
  }

  async models(probe: LlmProbe | void): Promise<{ models: string[] }> {
    return { models: await (await this.probeClient(probe)).listModels() };
  }

  /** Lists the models, then (when a model is named) asks it one tiny question. */
  async test(probe: LlmProbe | void) {
    const named = Boolean((probe && probe.model?.trim()) || (await this.config())?.model);
    const client = await this.probeClient(probe);
    const r = await client.testConnection(undefined, { ask: named });
    // The model the question went to: the form's, else the saved one (or LOUPE_MODEL's), said back.
    return { ok: r.ok, models: r.models, latency_ms: r.latencyMs, ...(named ? { model: client.config.model } : {}), ...(r.error ? { error: r.error } : {}), ...(r.reply !== undefined ? { reply: r.reply } : {}) };
  }
}

function factsView(f: ModelFacts): ModelFactsView {
  return {
    context_window: f.contextWindow,
    context_window_source: f.contextWindowSource,
    images: f.images,
    images_source: f.imagesSource,
    ...(f.price ? { input_usd_per_mtok: f.price.inputUsdPerMtok, output_usd_per_mtok: f.price.outputUsdPerMtok } : {}),
  };
}

const price = (v: unknown, what: string): number | undefined => {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new InvalidArgumentError(`${what} must be a number of dollars, 0 or more (got ${JSON.stringify(v)}).`);
  return v;
};

/** The model table as sent by a settings form, checked row by row. */
function modelTable(rows: unknown): Record<string, ModelRow> {
  if (!Array.isArray(rows)) throw new InvalidArgumentError('models must be a list of rows.');
  const out: Record<string, ModelRow> = {};
  for (const r of rows) {
    const row = r && typeof r === 'object' ? (r as Record<string, unknown>) : {};
    const model = typeof row.model === 'string' ? row.model.trim() : '';
    if (!model) throw new InvalidArgumentError('Each row of the model table needs a model name.');
    if (Object.hasOwn(out, model)) throw new InvalidArgumentError(`The model table names ${model} twice.`);
    if (row.images !== undefined && row.images !== null && typeof row.images !== 'boolean') throw new InvalidArgumentError(`images must be true or false (model ${model}).`);
    const input = price(row.input_usd_per_mtok, `The input price of ${model}`);
    const output = price(row.output_usd_per_mtok, `The output price of ${model}`);
    Object.defineProperty(out, model, {
      value: { ...(input !== undefined ? { input_usd_per_mtok: input } : {}), ...(output !== undefined ? { output_usd_per_mtok: output } : {}), ...(typeof row.images === 'boolean' ? { images: row.images } : {}) },
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
