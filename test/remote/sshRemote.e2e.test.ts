// Remote workspaces over ssh, all real: Debian's sshd with a user made for the test, the built
// `loupe remote … --serve` as the bin runs it, the window's own client on the URL it prints, and
// the scripted model on this machine's 127.0.0.1 (reached from there through the link). Checks
// about the remote are made there, as its user.
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatEvent } from '../../src/shared/contract';
import type { RecordedRequest, ScriptedReply } from '../support/scriptedLlm';
import { olderLoupe, remoteWorld, windowClient, type RemoteWorld } from '../support/remoteWorld';
import { until } from '../support/tmp';

const KEY = 'sk-remote-test-key-7f3a';

/** The n-th answer of a request: counts the tool results the model has seen so far. */
function byStep(steps: ScriptedReply[]): (req: RecordedRequest) => ScriptedReply {
  return (req) => steps[Math.min((req.body.messages ?? []).filter((m) => m.role === 'tool').length, steps.length - 1)];
}

let world: RemoteWorld | null = null;
afterEach(async () => {
  await world?.stop();
  world = null;
});

describe('a remote folder over ssh', () => {
  it('opens with no Loupe there: the agent edits and runs a command there, the edit in its log, the key never written there', async () => {
    world = await remoteWorld({
      script: byStep([
        { toolCalls: [{ name: 'write_file', arguments: JSON.stringify({ path: 'notes.txt', content: 'written by the agent\n' }) }] },
        { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'echo "$(whoami)@$(hostname)" > who.txt && cat who.txt', description: 'who runs this' }) }] },
        { content: 'Both done.' },
      ]),
    });
    const w = world;
    expect(w.sshd.asUser('ls -a ~')).not.toMatch(/\.loupe-server/);
    const served = await w.serve();
    const client = windowClient(served.url);
    const current = await client.request('workspace.current', undefined);
    expect(current?.root).toBe(w.project);
    const status = await client.request('remote.status', undefined);
    expect(status).toMatchObject({ kind: 'ssh', state: 'connected', path: w.project });

    const events: ChatEvent[] = [];
    client.on('chat.event', ({ event }) => events.push(event));
    await client.request('chat.send', { text: 'write the notes, then say who runs commands' });
    await until(() => events.some((e) => e.type === 'request_finished'), 120_000);
    expect(events.find((e) => e.type === 'request_finished')).toMatchObject({ status: 'done' });

    // Both ran there, as the remote user, in its home.
    expect(w.sshd.asUser(`cat ${w.project}/notes.txt`)).toBe('written by the agent\n');
    const host = w.sshd.asUser('hostname').trim();
    expect(w.sshd.asUser(`cat ${w.project}/who.txt`).trim()).toBe(`${w.sshd.user}@${host}`);
    expect(w.sshd.asUser(`stat -c %U ${w.project}/who.txt ${w.project}/notes.txt`).trim().split('\n')).toEqual([w.sshd.user, w.sshd.user]);
    // The edit is a modification of the remote folder's log, and the window reads it from there.
    const log = await client.request('modlog.list', {});
    expect(log.modifications.map((m) => [m.file, m.tool])).toEqual(expect.arrayContaining([['notes.txt', 'write_file'], ['who.txt', 'bash']]));
    expect(w.sshd.asUser(`grep -c '"file":"notes.txt"' ${w.project}/.loupe/modifications.jsonl`).trim()).toBe('1');

    // The host was installed beside nothing, atomically, owner-only; it listens on a 0600 socket.
    expect(w.sshd.asUser('ls ~/.loupe-server').split('\n').filter(Boolean).sort()).toEqual(['0.1.0', 'links']);
    expect(w.sshd.asUser('ls -a ~/.loupe-server').split('\n').filter((n) => n.startsWith('.tmp-'))).toEqual([]);
    expect(w.sshd.asUser('stat -c %a ~/.loupe-server ~/.loupe-server/0.1.0/host.sock').trim().split('\n')).toEqual(['700', '600']);
    expect(JSON.parse(w.sshd.asUser('cat ~/.loupe-server/0.1.0/manifest.json'))).toMatchObject({ version: '0.1.0', node: 'system' });

    // The key reached the model (through the link) and was never written there.
    expect(w.llm.completions.length).toBeGreaterThan(0);
    expect(w.llm.completions.every((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);
    expect(w.sshd.asUser(`grep -rl ${KEY} ~ || true`).trim()).toBe('');
    const pid = Number(JSON.parse(w.sshd.asUser('node ~/.loupe-server/0.1.0/bin/loupe.mjs remote-server --status')).pid);
    for (const f of ['cmdline', 'environ']) expect(w.sshd.asUser(`tr '\\0' '\\n' < /proc/${pid}/${f}`)).not.toContain(KEY);
    expect(w.sshd.asUser(`tr '\\0' '\\n' < /proc/${pid}/environ`)).not.toMatch(/^SSH_AUTH_SOCK=/m);
    await served.stop();
  }, 300_000);

  it('the link drops during a long command: it finishes there, the window gets its output and result, nothing runs twice', async () => {
    world = await remoteWorld({
      script: byStep([
        { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'echo x >> runs.txt; echo started > started.txt; while [ ! -f go.txt ]; do sleep 0.1; done; echo "finished as $(whoami)" > long.txt; echo long-done', description: 'a long build', timeout: 120000 }) }] },
        { content: 'The long build is over.' },
      ]),
    });
    const w = world;
    const served = await w.serve();
    const client = windowClient(served.url);
    const links: string[] = [];
    client.onStatus((s) => s.link && links.push(s.link.state));
    const events: ChatEvent[] = [];
    client.on('chat.event', ({ event }) => events.push(event));
    await client.request('chat.send', { text: 'run the long build' });
    await until(() => w.sshd.asUser(`test -f ${w.project}/started.txt && echo y || true`).trim() === 'y', 60_000, 200);
    const before = w.masterPid();
    expect(before).not.toBeNull();
    // The ssh connection dies under the running command, as when a laptop's network goes, and
    // stays down (the server takes no new connection) until the command is over there.
    w.sshd.pause();
    process.kill(before!, 'SIGKILL');
    await until(() => links.includes('reconnecting'), 30_000);
    // The command goes on to its end while the link is down (it waits for this file).
    w.sshd.asUser(`touch ${w.project}/go.txt`);
    await until(() => w.sshd.asUser(`test -f ${w.project}/long.txt && echo y || true`).trim() === 'y', 60_000, 200);
    const seenWhileDown = events.length;
    expect(events.some((e) => e.type === 'tool_call_finished')).toBe(false);
    const t0 = Date.now();
    w.sshd.resume();
    await until(() => events.some((e) => e.type === 'request_finished'), 120_000);
    console.log('finished', Date.now() - t0, 'ms after the server came back');
    expect(events.length).toBeGreaterThan(seenWhileDown);
    await until(() => client.status().state === 'open' && client.status().link?.state === 'connected', 60_000);

    expect(w.sshd.asUser(`cat ${w.project}/long.txt`).trim()).toBe(`finished as ${w.sshd.user}`);
    expect(w.sshd.asUser(`cat ${w.project}/runs.txt`)).toBe('x\n');
    const finished = events.filter((e) => e.type === 'tool_call_finished');
    expect(finished).toHaveLength(1);
    expect(finished[0]).toMatchObject({ ok: true });
    expect(JSON.stringify(finished[0])).toContain('long-done');
    expect(events.filter((e) => e.type === 'tool_call_started')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'request_finished')).toEqual([expect.objectContaining({ status: 'done' })]);
    expect(w.llm.completions).toHaveLength(2);
    // A new shared connection was made.
    expect(w.masterPid()).not.toBe(before);
    await served.stop();
  }, 300_000);

  it('an older Loupe runs a turn there: the new one starts beside it, the old turn completes, the old one goes only once idle', async () => {
    world = await remoteWorld({
      script: (req) => {
        const asked = JSON.stringify(req.body.messages?.find((m) => m.role === 'user')?.content ?? '');
        const tools = (req.body.messages ?? []).filter((m) => m.role === 'tool').length;
        if (asked.includes('old turn') && tools === 0) {
          return { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'echo started > old-started.txt; while [ ! -f go.txt ]; do sleep 0.2; done; echo old-finished > old.txt; echo old-done', description: 'the old turn', timeout: 300000 }) }] };
        }
        return { content: asked.includes('old turn') ? 'The old turn is done.' : 'Hello from the new one.' };
      },
    });
    const w = world;
    const older = await olderLoupe('0.0.9');
    try {
      // The older Loupe installs its host there and starts a turn, headless.
      const oldRun = w.run(['--yes', 'the old turn'], { bin: older.bin });
      await until(() => w.sshd.asUser(`test -f ${w.project}/old-started.txt && echo y || true`).trim() === 'y', 180_000, 250);
      const versions = () => w.sshd.asUser('ls ~/.loupe-server').split('\n').filter((n) => /^\d/.test(n)).sort();
      expect(versions()).toEqual(['0.0.9']);

      // The new one installs beside it, starts its own host, and never stops the old one's turn.
      const served = await w.serve();
      expect(versions()).toEqual(['0.0.9', '0.1.0']);
      const status = (v: string) => w.sshd.asUser(`node ~/.loupe-server/${v}/bin/loupe.mjs remote-server --status || true`).trim();
      expect(JSON.parse(status('0.0.9'))).toMatchObject({ version: '0.0.9', idle: false });
      expect(JSON.parse(status('0.1.0'))).toMatchObject({ version: '0.1.0' });
      const client = windowClient(served.url);
      const events: ChatEvent[] = [];
      client.on('chat.event', ({ event }) => events.push(event));
      await client.request('chat.send', { text: 'say hello' });
      await until(() => events.some((e) => e.type === 'request_finished'), 60_000);
      // The old host is still there, its turn still running.
      expect(versions()).toEqual(['0.0.9', '0.1.0']);
      expect(w.sshd.asUser(`test -f ${w.project}/old.txt && echo y || echo n`).trim()).toBe('n');
      w.sshd.asUser(`touch ${w.project}/go.txt`);

      const done = await oldRun;
      expect(done.code).toBe(0);
      expect(done.stdout).toContain('The old turn is done.');
      expect(done.stderr).toMatch(/--session ses-/);
      expect(w.sshd.asUser(`cat ${w.project}/old.txt`)).toBe('old-finished\n');

      // Idle now (its run ended): the next attach of the newer host prunes it.
      const oldPid = Number(JSON.parse(status('0.0.9') || '{"pid":0}').pid);
      await until(async () => {
        const again = windowClient(served.url);
        await again.request('workspace.current', undefined);
        return !versions().includes('0.0.9');
      }, 90_000, 1000);
      // Its process ends once it has closed what it held (a moment after it said yes).
      if (oldPid) await until(() => !w.sshd.userPids().includes(oldPid), 30_000, 200);
      await until(() => w.sshd.asUser('ls -a ~/.loupe-server').split('\n').every((n) => !n.startsWith('.trash-') && !n.startsWith('.tmp-')), 30_000, 200);
      await served.stop();
    } finally {
      await older.cleanup();
    }
  }, 400_000);

  it('a server the agent starts there is reachable on this machine\u2019s 127.0.0.1, and stops being when it stops', async () => {
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    const server = `node -e "require('http').createServer((q, s) => s.end('hello from ' + require('os').userInfo().username)).listen(${port}, '127.0.0.1')"`;
    world = await remoteWorld({
      script: byStep([
        { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: server, description: 'a dev server', run_in_background: true, wait_for: { port, timeout: 60000 } }) }] },
        { content: 'It is up.' },
      ]),
    });
    const w = world;
    const served = await w.serve();
    const client = windowClient(served.url);
    const statuses: { remote_port: number; local_port: number }[][] = [];
    client.on('remote.status', (s) => statuses.push(s.ports));
    const events: ChatEvent[] = [];
    client.on('chat.event', ({ event }) => events.push(event));
    await client.request('chat.send', { text: 'start the dev server' });
    await until(() => events.some((e) => e.type === 'request_finished'), 120_000);
    const [proc] = await client.request('processes.list', undefined);
    expect(proc).toMatchObject({ status: expect.stringMatching(/running|ready/) });
    const there = proc.forwards.find((f) => f.port === port)?.host_port ?? port;
    const mapped = await until(() => statuses.flat().find((p) => p.remote_port === there), 30_000);
    const res = await fetch(`http://127.0.0.1:${mapped.local_port}/`);
    expect(await res.text()).toBe(`hello from ${w.sshd.user}`);

    await client.request('processes.kill', { id: proc.process_id });
    await until(() => statuses.at(-1)?.every((p) => p.remote_port !== there), 30_000);
    await expect(fetch(`http://127.0.0.1:${mapped.local_port}/`)).rejects.toThrow();
    await served.stop();
  }, 300_000);

  it('closing the window leaves the turn running there; a question that came up meanwhile waits for the next window', async () => {
    world = await remoteWorld({
      script: byStep([
        { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'echo started > started.txt; while [ ! -f go.txt ]; do sleep 0.1; done; echo x >> slept.txt; echo slept-done', description: 'a long step', timeout: 120000 }) }] },
        { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'echo asked > asked.txt', description: 'a command that asks' }) }] },
        { content: 'All done.' },
      ]),
    });
    const w = world;
    // The person's own rule there makes the second command ask (the sandbox lets the rest run).
    w.sshd.asUser(`umask 077 && mkdir -p ~/.config/loupe && echo '{"permissions":[{"kind":"bash","pattern":"echo asked *","action":"ask"}]}' > ~/.config/loupe/settings.json`);
    const first = await w.serve();
    const client = windowClient(first.url);
    await client.request('chat.send', { text: 'a long step, then a command that asks' });
    await until(() => w.sshd.asUser(`test -f ${w.project}/started.txt && echo y || true`).trim() === 'y', 60_000, 200);
    // The window goes away (its process ends) while the command runs there; then it may end.
    await first.stop();
    w.sshd.asUser(`touch ${w.project}/go.txt`);
    await until(() => w.sshd.asUser(`test -f ${w.project}/slept.txt && echo y || true`).trim() === 'y', 60_000, 200);
    // The turn went on with no window: the model was asked again and its next command asks.
    await until(() => w.llm.completions.length >= 2, 60_000);

    const second = await w.serve();
    const again = windowClient(second.url);
    const events: ChatEvent[] = [];
    again.on('chat.event', ({ event }) => events.push(event));
    const card = await until(async () => (await again.request('approvals.list', undefined))[0], 60_000);
    expect(card).toMatchObject({ kind: 'bash' });
    expect(w.sshd.asUser(`test -f ${w.project}/asked.txt && echo y || echo n`).trim()).toBe('n');
    await again.request('approvals.answer', { id: card.id, answer: 'once' });
    await until(() => events.some((e) => e.type === 'request_finished'), 120_000);
    expect(events.find((e) => e.type === 'request_finished')).toMatchObject({ status: 'done' });
    expect(w.sshd.asUser(`cat ${w.project}/asked.txt`)).toBe('asked\n');
    expect(w.sshd.asUser(`cat ${w.project}/slept.txt`)).toBe('x\n');
    expect(w.llm.completions).toHaveLength(3);
    await second.stop();
  }, 300_000);
});
