// The host hands every request to the session's runner and treats every runner alike: its events
// are the chat's stream and the session's transcript, its state is saved when it ends, Stop
// reaches it, the queue drains into it, and one that cannot take a request leaves nothing behind.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatEvent } from '../../shared/contract';
import { LoupeError } from '../errors';
import type { AgentEvent } from '../agent/loop/events';
import type { RunnerRequest, RunnerState, SessionRunner } from '../agent/runner/types';
import { testServices } from '../../../test/support/services';
import { tempDir, until, writeTree } from '../../../test/support/tmp';
import type { WorkspaceServices } from '../services/workspaceServices';
import { ChatSessions } from './chatSessions';
import { DeltaBatcher } from './deltaBatcher';
import { Requests } from './requests';

/** A runner that answers with the words it was given, or waits until stopped when asked to. */
class EchoRunner implements SessionRunner {
  readonly agent = 'echo';
  readonly seen: RunnerRequest[] = [];
  constructor(private readonly refuse = false) {}
  async ready() {
    if (this.refuse) throw new LoupeError('LLM_ERROR', 'The echo agent is not installed.');
    return { images: false };
  }
  async run(request: RunnerRequest, state: RunnerState, emit: (e: AgentEvent) => void) {
    this.seen.push(request);
    const at = { correlation_id: request.correlationId, t: Date.now() };
    emit({ type: 'request_started', session_id: 'x', prompt: request.prompt, ...at });
    if (request.prompt === 'wait') await new Promise((resolve) => request.signal.addEventListener('abort', resolve, { once: true }));
    const status = request.signal.aborted ? ('aborted' as const) : ('done' as const);
    emit({ type: 'text_delta', text: `echo: ${request.prompt}`, ...at });
    state.messages = [...state.messages, { role: 'user', content: request.prompt }, { role: 'assistant', content: `echo: ${request.prompt}` }];
    emit({ type: 'request_finished', status, text: `echo: ${request.prompt}`, turns: 1, ...at });
    return { status, text: `echo: ${request.prompt}`, turns: 1 };
  }
  async dispose() {}
}

let dir: string;
let cleanup: () => Promise<void>;
let services: WorkspaceServices;
let chat: ChatEvent[];
let runners: EchoRunner[];

function setUp(refuse = false) {
  const sessions = new ChatSessions({
    emit: () => undefined,
    services: () => services,
    tools: () => {
      throw new Error('no tools here');
    },
    flush: () => undefined,
    onWorkspace: () => undefined,
  });
  const deltas = new DeltaBatcher((_id, e) => chat.push(e), 0);
  const requests = new Requests({
    sessions,
    deltas,
    runner: () => {
      const r = new EchoRunner(refuse);
      runners.push(r);
      return r;
    },
    tools: () => {
      throw new Error('no tools here');
    },
  });
  return { sessions, requests };
}

beforeEach(async () => {
  ({ dir, cleanup } = await tempDir('loupe-runner-'));
  await writeTree(dir, { 'a.txt': 'a\n' });
  services = testServices(dir);
  chat = [];
  runners = [];
});
afterEach(async () => {
  await services.dispose();
  await cleanup();
});

describe('requests go to the session runner', () => {
  it('streams its events, keeps them as the transcript and saves the state it leaves', async () => {
    const { requests, sessions } = setUp();
    const started = await requests.send({ text: 'hello' });
    expect(await started.finished).toBe('done');
    expect(chat.map((e) => e.type)).toEqual(['request_started', 'text_delta', 'request_finished']);
    const file = JSON.parse(await readFile(path.join(dir, '.loupe/sessions', `${started.session_id}.json`), 'utf8'));
    expect(file.messages).toEqual([
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'echo: hello' },
    ]);
    expect(file.requests).toMatchObject([{ correlation_id: started.correlation_id, prompt: 'hello', status: 'done' }]);
    const view = await sessions.view(started.session_id);
    expect(view.entries.map((e) => e.type)).toEqual(['user_message', 'text_delta', 'request_finished']);
    // The same runner serves the session's next request.
    await (await requests.send({ text: 'again', session_id: started.session_id })).finished;
    expect(runners).toHaveLength(1);
    expect(runners[0].seen.map((r) => r.prompt)).toEqual(['hello', 'again']);
  });

  it('Stop reaches the runner; a message queued meanwhile waits for the person after a stop, and drains after a finish', async () => {
    const { requests } = setUp();
    const first = await requests.send({ text: 'wait' });
    const queued = await requests.enqueue({ session_id: first.session_id, text: 'next' });
    expect(queued.id).toMatch(/^q-/);
    await requests.stop(first.session_id);
    expect(await first.finished).toBe('aborted');
    expect(runners[0].seen.map((r) => r.prompt)).toEqual(['wait']);
    // After a request that ends normally, the queue's next message goes to the runner.
    const second = await requests.send({ text: 'go', session_id: first.session_id });
    await second.finished;
    await until(() => runners[0].seen.length === 3);
    expect(runners[0].seen.map((r) => r.prompt)).toEqual(['wait', 'go', 'next']);
  });

  it('a runner that cannot take the request leaves no session and no file behind', async () => {
    const { requests, sessions } = setUp(true);
    await expect(requests.send({ text: 'hello' })).rejects.toMatchObject({ code: 'LLM_ERROR', message: 'The echo agent is not installed.' });
    expect(await sessions.list()).toEqual([]);
    expect(chat).toEqual([]);
  });
});

