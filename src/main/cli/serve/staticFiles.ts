import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import path from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ttf': 'font/ttf',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.ico': 'image/x-icon',
};

const STATIC_CHUNK = 1 << 20;

/** Serves a file from `root`; false when there is no such file (the caller answers 404). */
export async function serveStatic(root: string, urlPath: string, res: ServerResponse, headers: Record<string, string>): Promise<boolean> {
  let rel: string;
  try {
    rel = decodeURIComponent(urlPath);
  } catch {
    return false;
  }
  if (rel.endsWith('/')) rel += 'index.html';
  const file = path.resolve(root, '.' + path.posix.normalize('/' + rel));
  if (file !== root && !file.startsWith(root + path.sep)) return false;
  const st = await stat(file).catch(() => null);
  if (!st?.isFile()) return false;
  const isHtml = file.endsWith('.html');
  res.writeHead(200, {
    ...headers,
    'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream',
    'Content-Length': String(st.size),
    // Vite fingerprints assets; the page itself must always be fresh.
    'Cache-Control': isHtml ? 'no-store' : 'private, max-age=31536000, immutable',
  });
  // In reads of up to 1 MiB: the entry bundle (~450 KB) in one turn of the host's loop rather
  // than seven, each of which waited behind the first listing and the index starting beside it;
  // no bigger than the file, so a small file holds a small buffer. A file that vanishes mid-read
  // costs this response, not the process.
  createReadStream(file, { highWaterMark: Math.max(1, Math.min(STATIC_CHUNK, st.size)) })
    .on('error', () => res.destroy())
    .pipe(res);
  return true;
}
