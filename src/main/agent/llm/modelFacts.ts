// What Loupe knows of the configured model: its context window, whether it takes images, and
// its price. A server's /models entry says some of it (OpenRouter: context_length, pricing,
// architecture.input_modalities; vLLM: max_model_len; Mistral: max_context_length and
// capabilities.vision; LM Studio: type "vlm"); the settings' model table says the rest, and
// the window falls back to the settings, then to Loupe's default. The server wins for the
// window, because it states what it serves; the person's table wins for price and images,
// because they are the person's knowledge of their contract and model.
import type { ContextWindowSource } from '../../../shared/contract';
import { DEFAULT_CONTEXT_TOKENS, type LlmConfig } from './config';

/** What one /models entry says of its model. */
export interface ServerModelFacts {
  contextWindow?: number;
  images?: boolean;
  /** USD per million tokens. */
  inputUsdPerMtok?: number;
  outputUsdPerMtok?: number;
}

export interface ModelFacts {
  contextWindow: number;
  contextWindowSource: ContextWindowSource;
  images: boolean;
  imagesSource: 'settings' | 'server' | 'unknown';
  price?: { inputUsdPerMtok: number; outputUsdPerMtok: number };
}

type Json = Record<string, unknown>;

const positiveInt = (v: unknown): number | undefined => {
  const n = typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : undefined;
};

const perMillion = (v: unknown): number | undefined => {
  const n = typeof v === 'string' ? Number(v) : v;
  // OpenRouter prices per token, as strings; -1 means "varies" (its auto router).
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? Math.round(n * 1e6 * 1e6) / 1e6 : undefined;
};

const obj = (v: unknown): Json | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined);

/** Reads one /models entry; fields a server does not send stay absent. */
export function readServerModel(entry: unknown): ServerModelFacts {
  const e = obj(entry) ?? {};
  const top = obj(e.top_provider);
  const meta = obj(e.meta);
  const contextWindow =
    positiveInt(e.context_length) ?? positiveInt(top?.context_length) ?? positiveInt(e.max_model_len) ?? positiveInt(e.max_context_length) ?? positiveInt(e.context_window) ?? positiveInt(meta?.n_ctx);
  const arch = obj(e.architecture);
  const modalities = Array.isArray(arch?.input_modalities) ? (arch.input_modalities as unknown[]) : undefined;
  const caps = obj(e.capabilities);
  let images: boolean | undefined;
  if (modalities) images = modalities.includes('image');
  else if (typeof arch?.modality === 'string') images = /(^|\+)image/.test(arch.modality.split('->')[0]);
  else if (typeof caps?.vision === 'boolean') images = caps.vision;
  else if (e.type === 'vlm') images = true;
  const pricing = obj(e.pricing);
  const input = perMillion(pricing?.prompt);
  const output = perMillion(pricing?.completion);
  return {
    ...(contextWindow ? { contextWindow } : {}),
    ...(images !== undefined ? { images } : {}),
    ...(input !== undefined && output !== undefined ? { inputUsdPerMtok: input, outputUsdPerMtok: output } : {}),
  };
}

/** The entries of a /models answer by id. */
export function readModelList(body: unknown): Map<string, ServerModelFacts> {
  const data = obj(body)?.data;
  const out = new Map<string, ServerModelFacts>();
  if (!Array.isArray(data)) return out;
  for (const entry of data) {
    const id = obj(entry)?.id;
    if (typeof id === 'string') out.set(id, readServerModel(entry));
  }
  return out;
}

/**
 * The model's facts. `contextTokens`: the settings' window (or a caller's), used when the server
 * states none.
 */
export function modelFacts(config: Pick<LlmConfig, 'contextTokens' | 'modelRow'>, server: ServerModelFacts | null | undefined, contextTokens = config.contextTokens): ModelFacts {
  const row = config.modelRow;
  const [contextWindow, contextWindowSource]: [number, ContextWindowSource] = server?.contextWindow
    ? [server.contextWindow, 'server']
    : contextTokens
      ? [contextTokens, 'settings']
      : [DEFAULT_CONTEXT_TOKENS, 'default'];
  const [images, imagesSource]: [boolean, ModelFacts['imagesSource']] =
    row?.images !== undefined ? [row.images, 'settings'] : server?.images !== undefined ? [server.images, 'server'] : [false, 'unknown'];
  const price =
    row?.input_usd_per_mtok !== undefined && row.output_usd_per_mtok !== undefined
      ? { inputUsdPerMtok: row.input_usd_per_mtok, outputUsdPerMtok: row.output_usd_per_mtok }
      : server?.inputUsdPerMtok !== undefined && server.outputUsdPerMtok !== undefined
        ? { inputUsdPerMtok: server.inputUsdPerMtok, outputUsdPerMtok: server.outputUsdPerMtok }
        : undefined;
  return { contextWindow, contextWindowSource, images, imagesSource, ...(price ? { price } : {}) };
}
