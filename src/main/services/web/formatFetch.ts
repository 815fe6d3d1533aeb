// What the model reads for a fetch: where it came from, then the content inside untrusted
// markers, cut to a size a context window can hold.
import { wrapUntrusted } from './untrusted';
import type { WebFetchResult } from './webFetch';

export const MAX_OUTPUT_CHARS = 100_000;

export function formatWebFetch(r: WebFetchResult): string {
  let content = r.content;
  let note = '';
  if (content.length > MAX_OUTPUT_CHARS) {
    note = `\n[content cut at ${MAX_OUTPUT_CHARS} of ${content.length} characters; fetch a more specific page for the rest]`;
    content = content.slice(0, MAX_OUTPUT_CHARS);
  }
  const head = [`URL: ${r.url}`, ...(r.redirects.length ? [`Redirected: ${r.redirects.length} time(s)`] : []), ...(r.title ? [`Title: ${r.title}`] : []), `Content-Type: ${r.contentType || 'unknown'}`];
  return `${head.join('\n')}\n\n${wrapUntrusted(r.url, content + note)}`;
}
