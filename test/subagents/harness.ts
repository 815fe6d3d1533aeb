// A Host on a real temp workspace whose model is a scripted server answering the parent and each
// subagent by its own script (support/conversations.ts); the host's events are collected.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ChatEvent, EventChannel, HostEvents } from '../../src/shared/contract';
import { Host } from '../../src/main/host/host';
import { byConversation, type Conversation } from '../support/conversations';
import { startScriptedLlm, type ScriptedLlm } from '../support/scriptedLlm';
import { git, tempDir, until, writeTree } from '../support/tmp';
import { writeUserSettings } from '../support/userSettings';

export interface SubagentWorld {
  host: Host;
  root: string;
  home: string;
  llm: ScriptedLlm;
  seen: ReturnType<typeof byConversation>['seen'];
  events: { ch: EventChannel; p: unknown }[];
  /** Chat events of a session, in order (a subagent's arrive on its parent's). */
  chat(sessionId?: string): ChatEvent[];
  /** The request's own end (not a subagent's). */
  finished(correlationId: string, timeoutMs?: number): Promise<Extract<ChatEvent, { type: 'request_finished' }>>;
  close(): Promise<void>;
}

const ENV = ['OPENAI_BASE_URL', 'OPENAI_API_KEY', 'LOUPE_MODEL', 'LOUPE_CONTEXT_TOKENS', 'HOME'];

export interface WorldOptions {
  files?: Record<string, string>;
  git?: boolean;
  /** The person's settings.json (the sandbox is off unless it says otherwise). */
  settings?: Record<string, unknown>;
}

export async function subagentWorld(conversations: Conversation[], opts: WorldOptions = {}): Promise<SubagentWorld> {
  const saved = Object.fromEntries(ENV.map((k) => [k, process.env[k]]));
  for (const k of ENV) delete process.env[k];
  const { dir, cleanup } = await tempDir('loupe-subagents-');
  const home = path.join(dir, 'home');
  process.env.HOME = home;
  const root = path.join(dir, 'ws');
  await writeTree(root, opts.files ?? { 'README.md': '# project\n' });
  if (opts.git) {
    git(root, 'init', '-q');
    git(root, 'add', '-A');
    git(root, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'init');
  }
  const routed = byConversation(conversations);
  const llm = await startScriptedLlm(routed.respond);
  writeUserSettings(path.join(dir, 'config'), { sandbox: 'off', ...opts.settings });
  const host = new Host({ transport: 'websocket', configDir: path.join(dir, 'config') });
  const events: { ch: EventChannel; p: unknown }[] = [];
  host.onEvent((ch, p) => events.push({ ch, p }));
  await host.open(root);
  await host.handle('settings.save', { base_url: llm.baseURL, model: 'scripted' });
  const chat = (sessionId?: string) =>
    events
      .filter((e) => e.ch === 'chat.event' && (!sessionId || (e.p as HostEvents['chat.event']).session_id === sessionId))
      .map((e) => (e.p as HostEvents['chat.event']).event);
  return {
    host,
    root: (await host.handle('workspace.current', undefined))!.root,
    home,
    llm,
    seen: routed.seen,
    events,
    chat,
    finished: (correlationId, timeoutMs = 60_000) =>
      until(() => chat().find((e): e is Extract<ChatEvent, { type: 'request_finished' }> => e.type === 'request_finished' && e.correlation_id === correlationId && !e.agent_id), timeoutMs),
    close: async () => {
      await host.dispose();
      await llm.close();
      await cleanup();
      for (const k of ENV) if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    },
  };
}

export const call = (id: string, name: string, args: unknown) => ({ id, name, arguments: JSON.stringify(args) });

/** Processes whose command line is exactly these words, from the process table. */
export function processesRunning(argv: string[]): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const words = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').filter(Boolean);
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // A zombie has exited: it only waits to be reaped.
      if (words.join(' ') === argv.join(' ') && !/\) Z /.test(stat)) out.push(Number(name));
    } catch {
      // It ended while being looked at.
    }
  }
  return out;
}
