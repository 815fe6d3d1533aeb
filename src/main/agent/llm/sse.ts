// Server-sent events read by hand, because real servers bend the format: comment lines as
// keep-alives (OpenRouter's ": OPENROUTER PROCESSING"), `data:` with or without a space, CRLF,
// llama.cpp's older `error: {…}` field and bare JSON lines, which a spec parser drops silently
// (so the server's own message is lost). Each event is dispatched at a blank line, or at the end.

export type SseEvent = { kind: 'data'; data: string } | { kind: 'error'; data: string } | { kind: 'comment' };

export async function* readSse(body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  let event = '';
  let errorField: string[] = [];
  function* dispatch(): Generator<SseEvent> {
    if (errorField.length) yield { kind: 'error', data: errorField.join('\n') };
    else if (data.length) yield event === 'error' ? { kind: 'error', data: data.join('\n') } : { kind: 'data', data: data.join('\n') };
    data = [];
    errorField = [];
    event = '';
  }
  function* line(raw: string): Generator<SseEvent> {
    const l = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (l === '') return yield* dispatch();
    if (l.startsWith(':')) return yield { kind: 'comment' };
    // A JSON body written into the stream without a field name (a proxy forwarding the backend's
    // error as is): a spec parser drops it, and with it the only message there is.
    if (/^\s*[{[]/.test(l) && !data.length) return yield { kind: 'data', data: l };
    const colon = l.indexOf(':');
    const field = colon === -1 ? l : l.slice(0, colon);
    let value = colon === -1 ? '' : l.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
    else if (field === 'error') errorField.push(value);
  }
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buffer.indexOf('\n')) !== -1) {
      const l = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      yield* line(l);
    }
  }
  buffer += decoder.decode();
  if (buffer) yield* line(buffer);
  yield* dispatch();
}
