// The providers and local servers the "Connect a model" panel offers. Base URLs are those of the
// README's table of model servers (a test keeps the two the same); a local server needs no key.
import type { ModelPreset } from '../../../shared/contract';

export const MODEL_PRESETS: readonly ModelPreset[] = [
  { id: 'openai', name: 'OpenAI', base_url: 'https://api.openai.com/v1', needs_key: true, local: false },
  { id: 'openrouter', name: 'OpenRouter', base_url: 'https://openrouter.ai/api/v1', needs_key: true, local: false },
  { id: 'deepseek', name: 'DeepSeek', base_url: 'https://api.deepseek.com/v1', needs_key: true, local: false },
  { id: 'mistral', name: 'Mistral', base_url: 'https://api.mistral.ai/v1', needs_key: true, local: false },
  { id: 'gemini', name: 'Gemini', base_url: 'https://generativelanguage.googleapis.com/v1beta/openai', needs_key: true, local: false },
  { id: 'ollama', name: 'Ollama', base_url: 'http://127.0.0.1:11434/v1', needs_key: false, local: true },
  { id: 'lmstudio', name: 'LM Studio', base_url: 'http://127.0.0.1:1234/v1', needs_key: false, local: true },
  { id: 'vllm', name: 'vLLM', base_url: 'http://127.0.0.1:8000/v1', needs_key: false, local: true },
  { id: 'llamacpp', name: 'llama.cpp', base_url: 'http://127.0.0.1:8080/v1', needs_key: false, local: true },
];
