// What the app's agent writes to the user's log, where Help › Open Log finds it: a tool that
// crashes (the model gets INTERNAL; the log keeps the whole stack) and a config problem.
import { testServices } from '../../../test/support/services';
import { writeUserSettings } from '../../../test/support/userSettings';
import { openUserSettings } from '../workspace/compose';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatEvent, EventChannel, HostEvents } from '../../shared/contract';
import { startScriptedLlm, type ScriptedLlm } from '../../../test/support/scriptedLlm';
import { tempDir, until, writeTree } from '../../../test/support/tmp';
import { createToolRegistry } from '../agent/tools/registry';
import { defineTool, READS_WORKSPACE, success } from '../agent/tools/types';
import { logFilePath } from '../services/log/fileLogger';
import { userLog } from '../services/log/userLog';
import { AgentHost } from './agent';

let dir: string;
let cleanup: () => Promise<void>;
let llm: ScriptedLlm;
const ENV = ['OPENAI_BASE_URL', 'OPENAI_API_KEY', 'LOUPE_MODEL'];
const saved: Record<string, string | undefined> = {};

beforeEach(async () => {
  for (const k of ENV) {
    saved[k] = process.env[k];
    delete process.env[k];
  }
  ({ dir, cleanup } = await tempDir('loupe-agentlog-'));
  llm = await startScriptedLlm();
});
afterEach(async () => {
  await llm.close();
  await cleanup();
  for (const k of ENV) if (saved[k] === undefined) delete process.env[k];
  else process.env[k] = saved[k];
});

function indexTheWorld(items: string[]): string {
  return (undefined as unknown as Record<string, string>)[items[0]]; // a real bug: a TypeError
}

const flaky = defineTool({
  name: 'flaky',
  title: 'Flaky',
  description: 'A tool with a bug.',
  ...READS_WORKSPACE,
  schema: z.object({ items: z.array(z.string()) }),
  outputSchema: z.unknown(),
  summary: (args) => args.items.join(', '),
  run: async (args) => success(indexTheWorld(args.items)),
});

const readLog = (configDir: string) =>
  readFileSync(logFilePath(configDir), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));

describe('the app agent logs to the user log', () => {
  it('with the tool, the error and its stack, while the model gets INTERNAL', async () => {
    const configDir = path.join(dir, 'config');
    const ws = path.join(dir, 'ws');
    await writeTree(ws, { 'a.txt': 'a\n' });
    const events: { ch: EventChannel; p: unknown }[] = [];
    const log = userLog({ configDir });
    const services = testServices(ws, { configDir, asker: { kind: 'person' }, logger: log.logger });
    const agent = new AgentHost({
      user: openUserSettings(configDir),
      emit: (ch, p) => events.push({ ch, p }),
      services: () => services,
      registry: createToolRegistry().register(flaky),
      logger: log.logger,
      logFile: log.file,
    });
    await agent.saveSettings({ base_url: llm.baseURL, model: 'scripted' });
    llm.enqueue({ toolCalls: [{ name: 'flaky', arguments: JSON.stringify({ items: ['x'] }) }] }, { content: 'It broke.' });
    await agent.send({ text: 'go' });
    const chat = () => events.filter((e) => e.ch === 'chat.event').map((e) => (e.p as HostEvents['chat.event']).event);
    await until(() => chat().find((e) => e.type === 'request_finished'), 10_000);
    const done = chat().find((e): e is Extract<ChatEvent, { type: 'tool_call_finished' }> => e.type === 'tool_call_finished');
    expect(done).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });

    const file = logFilePath(configDir);
    expect(existsSync(file)).toBe(true);
    const crash = readLog(configDir).find((r) => r.event === 'tool.crashed');
    expect(crash).toMatchObject({ level: 'error', tool: 'flaky', error: { name: 'TypeError' } });
    expect(crash.error.stack).toContain('indexTheWorld');
    expect(crash.error.stack).toContain('agentLog.test.ts');
    expect((await agent.getSettings()).log_file).toBe(file);
    await agent.dispose();
    // The request warmed a snapshot of the folder; it stops before the folder goes.
    await services.dispose();
  });

  it('an "allow always" that cannot be saved (a malformed config) is a config problem in the log, with line:column', async () => {
    const configDir = path.join(dir, 'config');
    const ws = path.join(dir, 'ws');
    await writeTree(ws, { '.loupe/config.json': '{ "permissions": [\n  { "kind": "bash", \n' });
    writeUserSettings(configDir, { sandbox: 'off' }); // the card is the subject: commands ask
    const events: { ch: EventChannel; p: unknown }[] = [];
    const { logger } = userLog({ configDir });
    const services = testServices(ws, { configDir, asker: { kind: 'person' }, logger });
    const agent = new AgentHost({ user: openUserSettings(configDir), emit: (ch, p) => events.push({ ch, p }), services: () => services, logger });
    await agent.saveSettings({ base_url: llm.baseURL, model: 'scripted' });
    llm.enqueue({ toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'echo kept', description: 'say' }) }] }, { content: 'Done.' });
    await agent.send({ text: 'go' });
    const asked = await until(() => events.find((e) => e.ch === 'approvals.changed' && (e.p as HostEvents['approvals.changed']).requests.length), 10_000);
    const req = (asked.p as HostEvents['approvals.changed']).requests[0];
    await agent.answer({ id: req.id, answer: 'always' });
    await until(() => events.some((e) => e.ch === 'chat.event' && (e.p as HostEvents['chat.event']).event.type === 'request_finished'), 10_000);
    const problem = readLog(configDir).find((r) => r.event === 'permissions.warning');
    expect(problem).toMatchObject({ level: 'warn', root: ws });
    expect(problem.message).toMatch(/\.loupe\/config\.json:\d+:\d+/);
    await agent.dispose();
  });
});
