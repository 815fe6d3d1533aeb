// The server's own words out of an error body, whatever its shape: OpenAI's
// {error:{message}}, OpenRouter's error.metadata.raw (the upstream provider's text), Gemini's
// list [{error:{…}}], Mistral's {message:{detail:[{loc,msg}]}}, FastAPI's {detail}, a bare string.

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);

function details(list: unknown[]): string {
  return list
    .map((d) => {
      if (!isObject(d)) return String(d);
      const loc = Array.isArray(d.loc) ? d.loc.join('.') : '';
      const msg = typeof d.msg === 'string' ? d.msg : typeof d.message === 'string' ? d.message : JSON.stringify(d);
      return loc ? `${loc}: ${msg}` : msg;
    })
    .join('; ');
}

function fromValue(v: unknown): string | undefined {
  if (typeof v === 'string') return v.trim() || undefined;
  if (Array.isArray(v)) return v.length ? (v.every(isObject) && v.some((d) => 'msg' in d || 'loc' in d) ? details(v) : fromValue(v[0])) : undefined;
  if (!isObject(v)) return undefined;
  if ('error' in v && v.error) return fromValue(v.error);
  if ('detail' in v && v.detail) return fromValue(v.detail);
  const message = fromValue(v.message);
  const raw = isObject(v.metadata) ? v.metadata.raw : undefined;
  const rawText = typeof raw === 'string' ? raw : raw !== undefined ? JSON.stringify(raw) : undefined;
  const provider = isObject(v.metadata) && typeof v.metadata.provider_name === 'string' ? v.metadata.provider_name : undefined;
  if (message && rawText && !message.includes(rawText)) return `${message} (${provider ? `${provider}: ` : ''}${rawText})`;
  return message ?? rawText;
}

/** The message in a parsed body, or undefined when the body says nothing readable. */
export function serverMessage(body: unknown): string | undefined {
  const text = fromValue(body);
  return text?.replace(/\s+/g, ' ').trim().slice(0, 2000) || undefined;
}

/** The same for a body read as text: JSON when it parses, else the text itself (trimmed). */
export function serverMessageFromText(text: string): string | undefined {
  const t = text.trim();
  if (!t) return undefined;
  try {
    return serverMessage(JSON.parse(t)) ?? t.slice(0, 500);
  } catch {
    // An HTML error page from a proxy: its words, not its markup.
    const words = t.startsWith('<') ? t.replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]*>/g, ' ') : t;
    return words.replace(/\s+/g, ' ').trim().slice(0, 500) || undefined;
  }
}

/** The numeric code inside an error body ({error:{code:429}}), if any. */
export function errorCode(body: unknown): number | undefined {
  const e = Array.isArray(body) ? (body[0] as Json | undefined)?.error : isObject(body) ? body.error : undefined;
  const code = isObject(e) ? (e.code ?? e.status) : undefined;
  const n = typeof code === 'string' ? Number(code) : code;
  return typeof n === 'number' && Number.isInteger(n) ? n : undefined;
}
