// The values the person's settings keep that may be secrets, and their removal from anything
// Loupe writes for others to read (an exported session). A secret is found by where it is kept,
// not by its shape: the API key (wherever it is stored, the keychain included), every value of an
// MCP server's `env` and `headers` (as written and as expanded from Loupe's environment), sign-in
// clients and tokens, http hooks' headers, and any value under a key that names a key, token,
// secret, password or authorization. The names around them are kept: only the values go.
import type { UserSettings } from './userSettings';

/** What replaces a secret in an export. */
export const REDACTED = '[secret from settings removed]';
/**
 * Shorter values (a "1", a "true", a "debug" in an env) would blank out ordinary words and keep
 * nothing safe: keys, tokens and passwords are longer.
 */
const MIN_SECRET = 8;
const SECRET_KEY = /api[_-]?key|token|secret|passw(or)?d|authorization|credential|cookie/i;

export interface SecretSources {
  user: UserSettings;
  env: NodeJS.ProcessEnv;
  /** The API key in use, wherever it is kept (the keychain included). */
  apiKey?: string | null;
  /** A remote MCP server's sign-in (client and tokens), the keychain's included. */
  signIn?: (url: string) => Promise<Record<string, unknown>>;
}

function stringsIn(v: unknown, out: string[]): void {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) stringsIn(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) stringsIn(x, out);
}

/** `${env:VAR}` (MCP) and `$VAR` / `${VAR}` (hooks' headers) filled in from the environment. */
function expanded(value: string, env: NodeJS.ProcessEnv): string[] {
  const out: string[] = [];
  value.replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}|\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_m, a?: string, b?: string, c?: string) => {
    const v = env[(a ?? b ?? c)!];
    if (v) out.push(v);
    return '';
  });
  const whole = value.replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => env[name] ?? '');
  if (whole !== value) out.push(whole);
  return out;
}

/** Strings under keys that name a secret, anywhere in `v`. */
function underSecretKeys(v: unknown, out: string[]): void {
  if (Array.isArray(v)) for (const x of v) underSecretKeys(x, out);
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if (SECRET_KEY.test(k)) stringsIn(x, out);
      else underSecretKeys(x, out);
    }
  }
}

const objectAt = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** Every secret the settings hold, longest first (so a secret containing another goes whole). */
export async function settingsSecrets(src: SecretSources): Promise<string[]> {
  const found: string[] = [];
  const doc = (await src.user.document()) ?? {};
  if (src.apiKey) found.push(src.apiKey);
  if (src.env.OPENAI_API_KEY) found.push(src.env.OPENAI_API_KEY);
  underSecretKeys(doc, found);
  for (const server of Object.values(objectAt(doc.mcpServers))) {
    const s = objectAt(server);
    for (const value of [...Object.values(objectAt(s.env)), ...Object.values(objectAt(s.headers))]) {
      if (typeof value !== 'string') continue;
      found.push(value, ...expanded(value, src.env));
    }
  }
  for (const [url, saved] of Object.entries(objectAt(doc.mcp_oauth))) {
    stringsIn(objectAt(saved).client, found);
    stringsIn(objectAt(saved).tokens, found);
    if (src.signIn) stringsIn(await src.signIn(url).catch(() => ({})), found);
  }
  // http hooks' headers, in Claude Code's shape: { hooks: { Event: [{ hooks: [{ headers }] }] } }.
  for (const groups of Object.values(objectAt(doc.hooks))) {
    for (const group of Array.isArray(groups) ? groups : []) {
      for (const handler of Array.isArray(objectAt(group).hooks) ? (objectAt(group).hooks as unknown[]) : []) {
        for (const value of Object.values(objectAt(objectAt(handler).headers))) if (typeof value === 'string') found.push(value, ...expanded(value, src.env));
      }
    }
  }
  const kept = found.filter((s) => s.length >= MIN_SECRET && !/^\$\{env:[A-Za-z_][A-Za-z0-9_]*\}$/.test(s));
  return [...new Set(kept)].sort((a, b) => b.length - a.length);
}

/**
 * A secret cut where its text was cut (a title shortened with "…", output cut in the middle, the
 * tail of a long stream kept): a run of at least MIN_SECRET characters that begins the secret, or
 * ends it, is taken out too, so no cut leaves most of a secret behind.
 */
function withoutFragments(text: string, secret: string): string {
  if (secret.length <= MIN_SECRET) return text;
  const head = secret.slice(0, MIN_SECRET);
  for (let i = text.indexOf(head); i !== -1; i = text.indexOf(head, i + REDACTED.length)) {
    let k = MIN_SECRET;
    while (k < secret.length && i + k < text.length && text[i + k] === secret[k]) k++;
    text = text.slice(0, i) + REDACTED + text.slice(i + k);
  }
  const tail = secret.slice(-MIN_SECRET);
  for (let j = text.indexOf(tail); j !== -1; ) {
    const end = j + MIN_SECRET;
    let k = MIN_SECRET;
    while (k < secret.length && end - k - 1 >= 0 && text[end - k - 1] === secret[secret.length - k - 1]) k++;
    text = text.slice(0, end - k) + REDACTED + text.slice(end);
    j = text.indexOf(tail, end - k + REDACTED.length);
  }
  return text;
}

/** `v` with every secret taken out of every string in it, keys included; the shape is kept. */
export function redact<T>(v: T, secrets: readonly string[]): T {
  if (!secrets.length) return v;
  const clean = (s: string) => secrets.reduce((acc, secret) => withoutFragments(acc.includes(secret) ? acc.split(secret).join(REDACTED) : acc, secret), s);
  const walk = (x: unknown): unknown => {
    if (typeof x === 'string') return clean(x);
    if (Array.isArray(x)) return x.map(walk);
    if (x && typeof x === 'object') return Object.fromEntries(Object.entries(x).map(([k, y]) => [clean(k), walk(y)]));
    return x;
  };
  return walk(v) as T;
}
