// Local model servers on their usual ports, offered in settings when nothing is configured.
// A probe is one GET /models with a short timeout: a closed port answers at once.

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

async function probe(c: LocalCandidate, timeoutMs: number, signal?: AbortSignal): Promise<DetectedServer | null> {
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    const res = await fetch(`${c.baseURL.replace(/\/+$/, '')}/models`, { signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
    if (!res.ok) return null;
    const body = (await res.json()) as { data?: { id?: unknown }[] };
    if (!Array.isArray(body.data)) return null;
    return { ...c, models: body.data.map((m) => m.id).filter((id): id is string => typeof id === 'string') };
  } catch {
    return null;
  }
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
