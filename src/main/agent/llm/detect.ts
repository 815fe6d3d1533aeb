// Local model servers on their usual ports, offered in settings when nothing is configured.
// A probe is one GET /models with a short timeout: a closed port answers at once. It uses
// node:http, not fetch: the first fetch in a process loads its HTTP client, ~450 ms of compiling
// on a slow laptop that blocked every other request of a starting `loupe serve` (settings are
// asked for at start), the first tree rows included.
import http from 'node:http';

export interface LocalCandidate {
  name: string;
  baseURL: string;
}

export interface DetectedServer extends LocalCandidate {
  models: string[];
}

export const LOCAL_CANDIDATES: LocalCandidate[] = [
  { name: 'Ollama', baseURL: 'http://127.0.0.1:11434/v1' },
  { name: 'LM Studio', baseURL: 'http://127.0.0.1:1234/v1' },
];

/** At most this much of a /models answer is read. */
const MAX_BODY = 1024 * 1024;

function getJson(url: string, timeoutMs: number, signal?: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => {
    const done = (v: unknown) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', stop);
      resolve(v);
    };
    const req = http.get(url, { headers: { accept: 'application/json' } }, (res) => {
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
