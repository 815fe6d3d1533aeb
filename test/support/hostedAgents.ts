// The real agents' programs for hosted-agent tests (both ship inside their npm packages, pinned
// in package.json), and the scripted model they are pointed at: OpenCode reads its own
// `opencode.json` naming the scripted OpenAI-compatible server; Gemini CLI replays a file of
// responses (`--fake-responses`). A Host over a temp folder plays the app.
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { ChatEvent, EventChannel, HostEvents } from '../../src/shared/contract';
import type { RecordedRequest, ScriptedReply } from './scriptedLlm';

export const OPENCODE_BIN = path.resolve('node_modules/.bin/opencode');
export const GEMINI_BIN = path.resolve('node_modules/.bin/gemini');

/** What OpenCode's ready entry adds to its environment: nothing fetched at start. */
export const OPENCODE_QUIET = { OPENCODE_DISABLE_MODELS_FETCH: 'true', OPENCODE_DISABLE_AUTOUPDATE: 'true', OPENCODE_DISABLE_DEFAULT_PLUGINS: 'true', OPENCODE_DISABLE_LSP_DOWNLOAD: 'true', OPENCODE_DISABLE_SHARE: 'true' };

export function binariesPresent(): boolean {
  return existsSync(OPENCODE_BIN) && existsSync(GEMINI_BIN) && existsSync(realpathSync(OPENCODE_BIN));
}

/** `opencode.json` for a workspace: the scripted server as its only provider; `permission` as OpenCode reads it. */
export function opencodeJson(baseURL: string, permission: Record<string, string> = { edit: 'ask' }): string {
  return JSON.stringify(
    {
      $schema: 'https://opencode.ai/config.json',
      provider: { scripted: { npm: '@ai-sdk/openai-compatible', name: 'Scripted', options: { baseURL, apiKey: 'k' }, models: { scripted: { name: 'Scripted' } } } },
      model: 'scripted/scripted',
      small_model: 'scripted/scripted',
      permission,
    },
    null,
    2,
  );
}

/** The host and port of a base URL, as an agent entry's `network.hosts` names it. */
export const hostOf = (baseURL: string): string => new URL(baseURL).host;

/**
 * A responder that plays OpenCode's model turn by turn: `steps[i]` answers the i-th request of a
 * turn that offers tools (OpenCode's title request offers none, and gets a title), counted from the
 * last user message; past the end, "Done.".
 */
export function opencodeModel(steps: (ws: string) => ScriptedReply[], ws: string): (req: RecordedRequest) => ScriptedReply {
  const script = steps(ws);
  return (req) => {
    const tools = req.body.tools as unknown[] | undefined;
    if (!tools?.length) return { content: 'Hosted test' };
    const msgs = req.body.messages ?? [];
    let lastUser = -1;
    msgs.forEach((m, i) => {
      if (m.role === 'user') lastUser = i;
    });
    const step = msgs.slice(lastUser + 1).filter((m) => m.role === 'assistant').length;
    return script[step] ?? { content: 'Done.' };
  };
}

export const call = (name: string, args: Record<string, unknown>): ScriptedReply => ({ toolCalls: [{ name, arguments: JSON.stringify(args) }] });

/** The chat events a Host sent, in order. */
export function chatEvents(events: { ch: EventChannel; p: unknown }[], sessionId?: string): ChatEvent[] {
  return events.filter((e) => e.ch === 'chat.event' && (!sessionId || (e.p as HostEvents['chat.event']).session_id === sessionId)).map((e) => (e.p as HostEvents['chat.event']).event);
}
