// The page's first answers, in the page: `loupe serve` sends the HTML's head at once (the browser
// fetches and compiles the bundle meanwhile) and its end once the open folder and its root listing
// are known, as a JSON data block the page reads before its first render. A module script runs
// only once the whole document is in, so the first render has the tree's rows rather than waiting
// for the socket, its handshake and two answers (docs/architecture.md, "Big folders").
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { BOOT_ELEMENT_ID, type BootData } from '../../../shared/contract';

/** A root listing slower than this (a network folder) is not waited for: the page asks over the socket. */
export const BOOT_WAIT_MS = 500;

/** JSON that stays data inside a <script> block: no `</script>` or `<!--` in a file name closes it. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

function within<T>(work: Promise<T>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)));
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/**
 * Serves the app's index.html with the boot data; false when there is no index.html with a
 * `</body>` (the caller serves the file as it is, or answers 404).
 */
export async function serveBootPage(staticDir: string, res: ServerResponse, headers: Record<string, string>, boot: () => Promise<BootData | null>): Promise<boolean> {
  const html = await readFile(path.join(staticDir, 'index.html'), 'utf8').catch(() => null);
  const end = html?.lastIndexOf('</body>') ?? -1;
  if (html == null || end < 0) return false;
  const data = boot().catch(() => null);
  res.writeHead(200, { ...headers, 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
  res.write(html.slice(0, end));
  const known = await within(data, BOOT_WAIT_MS);
  const block = known ? `<script type="application/json" id="${BOOT_ELEMENT_ID}">${scriptJson(known)}</script>\n` : '';
  res.end(block + html.slice(end));
  return true;
}
