// Where the model lives. Explicit settings (the app's settings, a test) win field by
// field over the environment (OPENAI_BASE_URL, OPENAI_API_KEY, LOUPE_MODEL); with neither, no model.

/** One row of the settings' model table (`llm.models` in settings.json). */
export interface ModelRow {
  input_usd_per_mtok?: number;
  output_usd_per_mtok?: number;
  images?: boolean;
}

export interface LlmConfig {
  baseURL?: string;
  apiKey: string;
  model: string;
  /** The settings' context window in tokens, used when the server states none (modelFacts.ts). */
  contextTokens?: number;
  /** The model's row of the settings' model table: its price, whether it takes images. */
  modelRow?: ModelRow;
}

/** What a settings screen or a caller may set; blank fields fall back to the environment. */
export interface LlmSettings {
  baseURL?: string;
  apiKey?: string;
  model?: string;
  contextTokens?: number;
  /** The model table, by model name. */
  models?: Record<string, ModelRow>;
}

export const DEFAULT_CONTEXT_TOKENS = 32_768;

const clean = (s: string | undefined): string | undefined => s?.trim() || undefined;

function positiveInt(value: number | string | undefined): number | undefined {
  const n = typeof value === 'string' ? Number(value.trim()) : value;
  return n !== undefined && Number.isInteger(n) && n > 0 ? n : undefined;
}

/** null when no model is configured: callers then run without LLM help (or say how to connect one). */
export function resolveLlmConfig(settings: LlmSettings | undefined, env: NodeJS.ProcessEnv = process.env): LlmConfig | null {
  const model = clean(settings?.model) ?? clean(env.LOUPE_MODEL);
  if (!model) return null;
  const baseURL = clean(settings?.baseURL) ?? clean(env.OPENAI_BASE_URL);
  // Local servers (Ollama, llama.cpp, LM Studio) take any key; the client insists on one.
  const apiKey = clean(settings?.apiKey) ?? clean(env.OPENAI_API_KEY) ?? 'no-key';
  const contextTokens = positiveInt(settings?.contextTokens) ?? positiveInt(env.LOUPE_CONTEXT_TOKENS);
  const modelRow = settings?.models && Object.hasOwn(settings.models, model) ? settings.models[model] : undefined;
  return { model, apiKey, ...(baseURL ? { baseURL } : {}), ...(contextTokens ? { contextTokens } : {}), ...(modelRow ? { modelRow } : {}) };
}

export function llmConfigFromEnv(env: NodeJS.ProcessEnv = process.env): LlmConfig | null {
  return resolveLlmConfig(undefined, env);
}

export const NO_MODEL_MESSAGE =
  'No model is connected. Set LOUPE_MODEL to a model name and OPENAI_BASE_URL to an OpenAI-compatible endpoint ' +
  '(for example http://127.0.0.1:11434/v1 for Ollama or http://127.0.0.1:1234/v1 for LM Studio), plus OPENAI_API_KEY ' +
  'when the endpoint needs one; in the app, open Settings and fill in base URL, model and key.';
