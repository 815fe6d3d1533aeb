// Types of testBrowser.cjs, the test browser that opens sign-in pages.
import type { Readable } from 'node:stream';

export interface Page {
  status: number;
  /** Where it ended, after the redirects. */
  url: string;
  text: string;
  /** Every address it opened, the first one included. */
  visited: string[];
}

export function openPage(url: string): Promise<Page>;
export function signInUrlIn(line: string): string | null;
export function openPagesFrom(stream: Readable, opened?: (err: Error | null, page: Page | null) => void): void;
