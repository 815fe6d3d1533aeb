// Whether an endpoint's chat template opens the think block in the prompt. Templates such as
// DeepSeek-R1's and QwQ's end the generation prompt with `<think>`, so a server that does not
// parse reasoning streams it as plain text closed by a lone `</think>`: read as the answer
// until that tag arrives, it would be shown as the answer. llama-server renders a conversation
// with its template on POST /apply-template (no inference), so that is asked once per
// endpoint, before the first answer is read. A server without that route (every other kind,
// an older llama-server) says nothing, and the reader falls back to learning it from the first
// lone `</think>`.

/** How long the question may take; past it, nothing is learned. */
const ASK_TIMEOUT_MS = 3_000;

/** The generation prompt ends inside a think block the template opened. */
export const opensThink = (prompt: string): boolean => /<think>\s*$/.test(prompt);

/**
 * True or false as the server's template renders a one-line conversation; null when the server
 * has no such route or did not answer. Never throws. The conversation is a stand-in: the
 * person's messages never go anywhere but to the chat endpoint.
 */
export async function templateOpensThink(baseURL: string, apiKey: string, signal?: AbortSignal): Promise<boolean | null> {
  const root = baseURL.replace(/\/+$/, '').replace(/\/v1$/, '');
  try {
    const res = await fetch(`${root}/apply-template`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'Hello' }] }),
      signal: AbortSignal.any([AbortSignal.timeout(ASK_TIMEOUT_MS), ...(signal ? [signal] : [])]),
    });
    if (!res.ok) {
      await res.body?.cancel();
      return null;
    }
    const body = (await res.json()) as { prompt?: unknown };
    return typeof body?.prompt === 'string' ? opensThink(body.prompt) : null;
  } catch {
    return null;
  }
}
