// Which model failures are worth another try, and how long to wait: exponential backoff with
// jitter, or the server's own retry-after when it gives one, always capped so Stop stays snappy.
import { AbortedError } from '../../errors';
import { IdleTimeoutError, ServerError, StreamCutError } from './errors';
import { isOpenAIError } from './openaiErrors';

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 4, baseDelayMs: 500, maxDelayMs: 20_000 };

export function isRetryable(err: unknown): boolean {
  if (isOpenAIError(err, 'APIUserAbortError') || err instanceof AbortedError) return false;
  if (err instanceof StreamCutError || err instanceof IdleTimeoutError || isOpenAIError(err, 'APIConnectionError')) return true;
  if (err instanceof ServerError) return err.retryable;
  // fetch's own failures: refused, reset, DNS.
  if (err instanceof TypeError && /fetch failed|terminated|ECONN|socket/i.test(`${err.message} ${String((err as { cause?: unknown }).cause ?? '')}`)) return true;
  if (isOpenAIError(err, 'APIError')) return err.status === 429 || err.status === 408 || (err.status !== undefined && err.status >= 500);
  return false;
}

/** The wait a failed attempt asked for; undefined when absent or unreadable. */
export function retryAfterMs(err: unknown, now = Date.now()): number | undefined {
  if (err instanceof ServerError) return err.retryAfterMs;
  return fromHeaders(isOpenAIError(err, 'APIError') ? err.headers : undefined, now);
}

/** retry-after-ms, then retry-after (seconds or an HTTP date). */
export function fromHeaders(headers: Headers | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = Number(headers.get('retry-after-ms'));
  if (headers.get('retry-after-ms') && Number.isFinite(ms) && ms >= 0) return ms;
  const raw = headers.get('retry-after');
  if (!raw) return undefined;
  const secs = Number(raw);
  if (Number.isFinite(secs) && secs >= 0) return secs * 1000;
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export function backoffMs(attempt: number, policy: RetryPolicy, err?: unknown): number {
  const told = retryAfterMs(err);
  const computed = policy.baseDelayMs * 2 ** (attempt - 1) * (0.75 + Math.random() * 0.5);
  return Math.min(policy.maxDelayMs, told ?? computed);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AbortedError('The model request'));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortedError('The model request'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
