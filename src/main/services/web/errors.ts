import { LoupeError } from '../../errors';

/** Refused before any I/O: the model can fix the URL. */
export class UnsupportedUrlError extends LoupeError {
  constructor(url: string, why: string) {
    super('INVALID_ARGUMENT', `Cannot fetch ${url}: ${why}.`);
  }
}

export class FetchFailedError extends LoupeError {
  constructor(message: string) {
    super('FETCH_FAILED', message);
  }
}

export class FetchTooLargeError extends LoupeError {
  constructor(url: string, limit: number) {
    super('FETCH_TOO_LARGE', `${url} is larger than ${Math.round(limit / 1024 / 1024)} MB and was not read. Fetch a more specific page, or a raw/plain-text version.`);
  }
}

export class FetchTimeoutError extends LoupeError {
  constructor(url: string, seconds: number) {
    super('TIMEOUT', `${url} did not finish within ${seconds} s. Retry with a longer timeout (max 120 s) or fetch a smaller page.`);
  }
}
