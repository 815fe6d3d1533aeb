// The host's side of background processes: stopping a request leaves its process running and
// says so in the chat; processes.* list, watch (with the log's start), stream and kill it.
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { EventChannel, HostEvents } from '../../shared/contract';
import { startScriptedLlm, type ScriptedLlm } from '../../../test/support/scriptedLlm';
import { tempDir, until, writeTree } from '../../../test/support/tmp';
import { writeUserSettings } from '../../../test/support/userSettings';
import { Host } from './host';

let t: { dir: string; cleanup: () => Promise<void> };
let host: Host;
let llm: ScriptedLlm;
let events: { ch: EventChannel; p: unknown }[];

beforeEach(async () => {
  t = await tempDir();
  llm = await startScriptedLlm();
  // The sandbox off and a rule for the job: the webfetch after it waits on a card, so the request can be stopped mid-way.
  writeUserSettings(path.join(t.dir, 'config'), { sandbox: 'off', permissions: [{ kind: 'bash', pattern: 'sh job.sh', action: 'allow' }] });
  host = new Host({ transport: 'websocket', configDir: path.join(t.dir, 'config') });
  events = [];
  host.onEvent((ch, p) => events.push({ ch, p }));
  await writeTree(path.join(t.dir, 'ws'), { 'job.sh': 'echo job started; i=0; while true; do i=$((i+1)); echo "tick $i"; sleep 0.1; done\n' });
  await host.open(path.join(t.dir, 'ws'));
  await host.handle('settings.save', { base_url: llm.baseURL, model: 'scripted' });
});
afterEach(async () => {
  await host.dispose();
  await llm.close();
  await t.cleanup();
});

const of = <E extends EventChannel>(ch: E) => events.filter((e) => e.ch === ch).map((e) => e.p as HostEvents[E]);

it('stop leaves the background process running and says which; the pane lists, streams and kills it', async () => {
  llm.enqueue(
    { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'sh job.sh', description: 'job', run_in_background: true, wait_for: { regex: 'job started' } }) }] },
    { toolCalls: [{ name: 'webfetch', arguments: JSON.stringify({ url: 'https://example.com/' }) }] },
  );
  const sent = await host.handle('chat.send', { text: 'start the job' });
  await until(async () => (await host.handle('approvals.list', undefined)).length);
  await host.handle('chat.stop', { session_id: sent.session_id });
  const notice = of('chat.event').find((e) => e.event.type === 'notice');
  expect(notice?.event).toMatchObject({ type: 'notice', text: expect.stringContaining('Still running in the background: proc-1 (sh job.sh)') });

  const [p] = await host.handle('processes.list', undefined);
  expect(p).toMatchObject({ process_id: 'proc-1', status: 'ready', session_id: sent.session_id });
  await until(() => of('processes.changed').some((e) => e.processes.some((x) => x.status === 'ready')));

  const first = await host.handle('processes.watch', { id: 'proc-1' });
  expect(first?.data).toContain('job started');
  // More of the log arrives as processes.data, continuing where the first part ended.
  const data = await until(() => of('processes.data').find((d) => d.id === 'proc-1'));
  expect(data.offset).toBe(first!.to);
  await host.handle('processes.ack', { id: 'proc-1', chars: data.data.length });

  const killed = await host.handle('processes.kill', { id: 'proc-1' });
  expect(killed).toMatchObject({ status: 'killed', kill_reason: 'stopped from the Processes pane' });
  await expect(host.handle('processes.kill', { id: 'proc-7' })).rejects.toMatchObject({ code: 'PROCESS_NOT_FOUND' });

  // Restart: the same command again under the same id, its log anew.
  const again = await host.handle('processes.restart', { id: 'proc-1' });
  expect(again).toMatchObject({ process_id: 'proc-1', status: 'running', command: 'sh job.sh', kill_reason: null });
  // A viewer still watching it is sent the new run from its first byte, not from where the old one ended.
  const fresh = await until(() => of('processes.data').find((d) => d.id === 'proc-1' && d.offset === 0));
  expect(fresh.data).toMatch(/^job started/);
  await until(async () => (await host.handle('processes.watch', { id: 'proc-1' }))?.data.includes('job started'));
  expect((await host.handle('processes.list', undefined)).map((x) => x.status)).toEqual(['running']);
});
