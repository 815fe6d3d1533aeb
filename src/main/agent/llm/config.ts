// Where the model lives (DESIGN §8). Env defaults now; the app's settings later feed the same shape.

export interface LlmConfig {
  baseURL?: string;
  apiKey: string;
  model: string;
}

/** null when no model is configured: callers then run without LLM help. */
export function llmConfigFromEnv(env: NodeJS.ProcessEnv = process.env): LlmConfig | null {
  const model = env.LOUPE_MODEL?.trim();
  if (!model) return null;
  const baseURL = env.OPENAI_BASE_URL?.trim() || undefined;
  // Local servers (Ollama, llama.cpp, LM Studio) take any key; the client insists on one.
  const apiKey = env.OPENAI_API_KEY?.trim() || 'no-key';
  return { model, apiKey, ...(baseURL ? { baseURL } : {}) };
}
