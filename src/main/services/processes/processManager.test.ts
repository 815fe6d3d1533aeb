import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir, until } from '../../../../test/support/tmp';
import { probeSandbox } from '../sandbox/probe';
import { processTable } from '../process/processTable';
import { ProcessManager } from './processManager';

const sandbox = await probeSandbox();
const inSandbox = sandbox.available && sandbox.kind === 'bwrap' ? it : it.skip;

let t: { dir: string; cleanup: () => Promise<void> };
let m: ProcessManager | null = null;
afterEach(async () => {
  await m?.dispose();
  m = null;
  await t?.cleanup();
});

async function manager(limits: { maxRunning?: number; idleMs?: number } = {}, ringBytes?: number): Promise<ProcessManager> {
  t = await tempDir('loupe-proc-');
  m = new ProcessManager({ root: t.dir, limits: () => limits, ...(ringBytes ? { ringBytes } : {}) });
  return m;
}

const spec = (command: string, sandboxed = false) => ({
  command,
  cwd: t.dir,
  sessionId: 's1',
  ...(sandboxed ? { sandbox: { root: t.dir, grant: { network: false, networkRule: null }, home: t.dir } } : {}),
});

/** Pids whose command line mentions `marker` (the test's own tag), other than this process. */
function alive(marker: string): number[] {
  const out: number[] = [];
  for (const p of processTable()) {
    if (p.pid === process.pid) continue;
    try {
      const cmd = readFileSync(`/proc/${p.pid}/cmdline`, 'utf8');
      const stat = readFileSync(`/proc/${p.pid}/stat`, 'utf8');
      if (cmd.includes(marker) && !/\) Z /.test(stat)) out.push(p.pid);
    } catch {}
  }
  return out;
}

function get(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: '/' }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve(body));
    }).on('error', reject);
  });
}

describe('ProcessManager', () => {
  it('starts in the background, waits for a line, reads only new output, stops the whole family', async () => {
    const pm = await manager();
    const p = await pm.start(spec('echo booting; sleep 0.2; echo "Local: http://x"; sleep 60 # tag-a1'), true);
    const w = await pm.wait(p.id, { regex: 'Local:.*http://' }, 10_000);
    expect(w).toMatchObject({ satisfied: true, matched_line: 'Local: http://x' });
    expect(pm.get(p.id).info().status).toBe('ready');
    expect(pm.output(p.id, { reader: 'r', maxBytes: 1000 }).text).toBe('booting\nLocal: http://x\n');
    expect(pm.output(p.id, { reader: 'r', maxBytes: 1000 }).text).toBe('');
    expect(pm.output(p.id, { reader: 'other', maxBytes: 1000 }).text).toContain('booting');
    const info = await pm.kill(p.id);
    expect(info.status).toBe('killed');
    expect(alive('tag-a1')).toEqual([]);
  });

  it('regex and port waits time out cleanly, the output so far kept, the process still running', async () => {
    const pm = await manager();
    const p = await pm.start(spec('echo partial output; sleep 60'), true);
    const r = await pm.wait(p.id, { regex: 'never' }, 300);
    expect(r).toMatchObject({ satisfied: false, timed_out: true, exited: false });
    const q = await pm.wait(p.id, { port: 1 }, 300);
    expect(q).toMatchObject({ satisfied: false, timed_out: true });
    expect(pm.get(p.id).alive).toBe(true);
    expect(pm.get(p.id).info().status).toBe('running');
    expect(pm.output(p.id, { reader: 'r', maxBytes: 1000 }).text).toBe('partial output\n');
  });

  it('an exit before the condition says so, with the exit code', async () => {
    const pm = await manager();
    const p = await pm.start(spec('echo oops; exit 3'), true);
    const r = await pm.wait(p.id, { regex: 'ready' }, 10_000);
    expect(r).toMatchObject({ satisfied: false, exited: true });
    expect(pm.get(p.id).info()).toMatchObject({ status: 'exited', exit_code: 3 });
    expect((await pm.wait(p.id, { exit: true }, 1000)).satisfied).toBe(true);
  });

  it('keeps memory to the ring and the whole output in the log, readable by offset, tail and grep', async () => {
    const pm = await manager({}, 4096);
    const p = await pm.start(spec('for i in $(seq 1 5000); do echo "line $i"; done'), true);
    await pm.wait(p.id, { exit: true }, 20_000);
    const all = pm.output(p.id, { reader: 'r', since: 0, maxBytes: 10_000_000 });
    expect(all.text.split('\n').filter(Boolean)).toHaveLength(5000);
    expect(all.lost).toBe(0);
    expect(readFileSync(path.join(t.dir, pm.get(p.id).info().log_path!), 'utf8')).toBe(all.text);
    expect(pm.output(p.id, { reader: 'r', tail: 3, maxBytes: 1000 }).text).toBe('line 4998\nline 4999\nline 5000\n');
    expect(pm.output(p.id, { reader: 'r', since: 0, grep: /^line 12\d$/, maxBytes: 1000 }).text.split('\n').filter(Boolean)).toHaveLength(10);
    // tail of a range that starts in the log, not the ring
    expect(pm.output(p.id, { reader: 'r', since: 0, tail: 1, maxBytes: 1000 }).text).toBe('line 5000\n');
  });

  it('a process that ignores SIGTERM and forks a grandchild: kill and dispose leave nothing behind', async () => {
    const pm = await manager();
    const cmd = (tag: string) => `trap "" TERM; (trap "" TERM; sleep 300 # ${tag}-grandchild\n) & sleep 300 # ${tag}`;
    const a = await pm.start(spec(cmd('tag-b1')));
    const b = await pm.start(spec(cmd('tag-b2')));
    await until(() => alive('tag-b1-grandchild').length && alive('tag-b2-grandchild').length);
    await pm.kill(a.id);
    expect(alive('tag-b1')).toEqual([]);
    expect(pm.get(b.id).alive).toBe(true);
    await pm.dispose();
    m = null;
    expect(alive('tag-b2')).toEqual([]);
    expect(pm.list().find((p) => p.process_id === b.id)?.status).toBe('killed');
  });

  it('refuses past the running limit with PROCESS_LIMIT, and an unknown id with PROCESS_NOT_FOUND', async () => {
    const pm = await manager({ maxRunning: 1 });
    await pm.start(spec('sleep 60'));
    await expect(pm.start(spec('sleep 60'))).rejects.toMatchObject({ code: 'PROCESS_LIMIT' });
    expect(() => pm.get('proc-99')).toThrow(expect.objectContaining({ code: 'PROCESS_NOT_FOUND' }));
  });

  it('stops a process idle past the limit; output or a read keeps it alive', async () => {
    const pm = await manager({ idleMs: 1000 });
    const quiet = await pm.start(spec('sleep 60'));
    const read = await pm.start(spec('sleep 60'));
    expect(await pm.checkIdle(quiet.lastActivity + 500)).toEqual([]);
    await until(() => Date.now() > quiet.lastActivity + 50);
    pm.output(read.id, { reader: 'r', maxBytes: 10 });
    expect(await pm.checkIdle(quiet.lastActivity + 1001)).toEqual([quiet.id]);
    expect(pm.get(read.id).alive).toBe(true);
    expect(pm.get(quiet.id).info()).toMatchObject({ status: 'killed', kill_reason: expect.stringContaining('idle') });
  });

  inSandbox('a sandboxed server: its port is found in its own namespace and reachable from this machine', async () => {
    const pm = await manager();
    const server = `require("http").createServer((q,s)=>s.end("hello from inside")).listen(0,"127.0.0.1",function(){console.log("port "+this.address().port)})`;
    const p = await pm.start(spec(`${JSON.stringify(process.execPath)} -e ${JSON.stringify(server)} # tag-c1`, true), true);
    const w = await pm.wait(p.id, { regex: 'port \\d+' }, 10_000);
    const port = Number(/port (\d+)/.exec(w.matched_line!)![1]);
    expect((await pm.wait(p.id, { port }, 10_000)).satisfied).toBe(true);
    const info = pm.get(p.id).info();
    expect(info).toMatchObject({ sandboxed: true, ports: [port] });
    const hostPort = info.forwards.find((f) => f.port === port)!.host_port;
    expect(await get(hostPort)).toBe('hello from inside');
    await pm.kill(p.id);
    expect(alive('tag-c1')).toEqual([]);
    await expect(get(hostPort)).rejects.toThrow();
  });
});
