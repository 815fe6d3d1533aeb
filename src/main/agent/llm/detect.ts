// Local model servers on their usual ports, offered in settings when nothing is configured,
// and the GET that reads a server's /models for its models' facts (modelFacts.ts).
// A probe is one GET /models with a short timeout: a closed port answers at once. It uses
// node:http, not fetch: the first fetch in a process loads its HTTP client, ~450 ms of compiling
// on a slow laptop that blocked every other request of a starting `loupe serve` (settings are
// asked for at start), the first tree rows included.
import http from 'node:http';
import https from 'node:https';
import { MODEL_PRESETS } from './presets';

export interface LocalCandidate {
  name: string;
  baseURL: string;
}

export interface DetectedServer extends LocalCandidate {
  models: string[];
}

/** The local presets' usual ports (Ollama, LM Studio, vLLM, llama.cpp's server). */
export const LOCAL_CANDIDATES: LocalCandidate[] = MODEL_PRESETS.filter((p) => p.local).map((p) => ({ name: p.name, baseURL: p.base_url }));

/** At most this much of a /models answer is read. */
const MAX_BODY = 1024 * 1024;

/** GET a JSON document with node:http(s) (see above); null on any failure, a non-200, or more than 1 MB. */
export function getJson(url: string, timeoutMs: number, signal?: AbortSignal, headers: Record<string, string> = {}): Promise<unknown> {
  return new Promise((resolve) => {
    const done = (v: unknown) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', stop);
      resolve(v);
    };
    const get = url.startsWith('https:') ? https.get : http.get;
    const req = get(url, { headers: { accept: 'application/json', ...headers } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        return done(null);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_BODY) return void (req.destroy(), done(null));
        chunks.push(c);
      });
      res.on('end', () => {
        try {
          done(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        } catch {
          done(null);
        }
      });
      res.on('error', () => done(null));
    });
    const stop = () => {
      req.destroy();
      done(null);
    };
    const timer = setTimeout(stop, timeoutMs);
    signal?.addEventListener('abort', stop, { once: true });
    req.on('error', () => done(null));
  });
}

async function probe(c: LocalCandidate, timeoutMs: number, signal?: AbortSignal): Promise<DetectedServer | null> {
  if (signal?.aborted || !/^http:\/\//.test(c.baseURL)) return null;
  const body = (await getJson(`${c.baseURL.replace(/\/+$/, '')}/models`, timeoutMs, signal)) as { data?: { id?: unknown }[] } | null;
  if (!body || typeof body !== 'object' || !Array.isArray(body.data)) return null;
  return { ...c, models: body.data.map((m) => m?.id).filter((id): id is string => typeof id === 'string') };
}

/** The servers that answered, in candidate order. */
export async function detectLocalServers(opts: { candidates?: LocalCandidate[]; timeoutMs?: number; signal?: AbortSignal } = {}): Promise<DetectedServer[]> {
  const found = await Promise.all((opts.candidates ?? LOCAL_CANDIDATES).map((c) => probe(c, opts.timeoutMs ?? 500, opts.signal)));
  return found.filter((s): s is DetectedServer => s !== null);
}

/** One sentence for a "no model" message: what was found and the settings that would use it. */
export function describeDetected(servers: DetectedServer[]): string {
  if (!servers.length) return '';
  return ` Found running: ${servers
    .map((s) => `${s.name} at ${s.baseURL}${s.models.length ? ` (models: ${s.models.slice(0, 5).join(', ')})` : ''}`)
    .join('; ')} — e.g. OPENAI_BASE_URL=${servers[0].baseURL} LOUPE_MODEL=${servers[0].models[0] ?? '<model>'}.`;
}
