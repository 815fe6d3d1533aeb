// The openai package is loaded on the first model call (it costs ~100 ms at start-up, before
// anything needs it), so its error classes are not at hand where errors are classified. Its
// errors are recognised by class name along the prototype chain, which `instanceof` would
// also follow: APIUserAbortError and APIConnectionError are APIErrors.
export type OpenAIErrorName = 'APIError' | 'APIUserAbortError' | 'APIConnectionError';

export interface OpenAIApiError extends Error {
  status?: number;
  headers?: Headers;
}

export function isOpenAIError(err: unknown, name: OpenAIErrorName): err is OpenAIApiError {
  if (!(err instanceof Error)) return false;
  for (let p: object | null = Object.getPrototypeOf(err) as object | null; p && p !== Error.prototype; p = Object.getPrototypeOf(p) as object | null) {
    if ((p as { constructor?: { name?: string } }).constructor?.name === name) return true;
  }
  return false;
}
