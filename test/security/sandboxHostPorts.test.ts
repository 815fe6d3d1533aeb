// A service of this machine is reachable from the sandbox exactly when a rule names its port
// (docs/security.md, "The sandbox's network"). Real bwrap, real servers on this machine's
// loopback (a line server standing in for a database, an HTTP one, one on ::1), real clients
// (node's net, curl), the real gate, the real tools: a `network` rule naming `127.0.0.1:PORT`,
// `localhost:PORT` or `[::1]:PORT` forwards that port into the sandbox's own loopback; any other
// port of this machine stays out of reach and the result says which port and which rule would
// allow it. Every port here is picked by the kernel (port 0) and written into the rule.
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bashTool } from '../../src/main/agent/tools/bash';
import type { ToolContext } from '../../src/main/agent/tools/types';
import { ApprovalQueue, type ApprovalRequest } from '../../src/main/services/permissions/approvalQueue';
import { PermissionGate } from '../../src/main/services/permissions/permissionGate';
import { ProjectConfig } from '../../src/main/services/permissions/projectConfig';
import { PermissionEngine } from '../../src/main/services/permissions/ruleEngine';
import { trustCurrentConfig } from '../../src/main/services/permissions/trust';
import type { PermissionRule } from '../../src/main/services/permissions/types';
import { SandboxProbe, probeSandbox } from '../../src/main/services/sandbox/probe';
import { UserSettings } from '../../src/main/services/settings/userSettings';
import type { NetworkLogEntry } from '../../src/shared/contract';
import { fixture, writeServers } from '../support/mcpServers';
import { testServices } from '../support/services';
import { tempWorkspace } from '../support/tmp';
import { harness, type Harness } from '../support/toolHarness';
import { writeUserSettings } from '../support/userSettings';

const availability = await probeSandbox();
const d = availability.available && availability.kind === 'bwrap' ? describe : describe.skip;

/** A line server on this machine: greets each line with its name; counts connections. */
interface LineServer {
  server: net.Server;
  port: number;
  accepted: number;
}

async function lineServer(name: string, host = '127.0.0.1', port = 0): Promise<LineServer> {
  const me: LineServer = { server: net.createServer(), port: 0, accepted: 0 };
  me.server.on('connection', (s) => {
    me.accepted++;
    s.on('error', () => s.destroy());
    let buf = '';
    s.on('data', (d) => {
      buf += d;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        s.write(`${name} says ${buf.slice(0, nl)}\n`);
        buf = buf.slice(nl + 1);
      }
    });
  });
  await new Promise<void>((ok, no) => me.server.once('error', no).listen(port, host, ok));
  me.port = (me.server.address() as AddressInfo).port;
  return me;
}

// node's net, no proxy: as psql or redis-cli dial.
const CLIENT = `const net=require('net');const [host,port]=process.argv.slice(2);
const s=net.connect({host,port:+port},()=>s.write('ping\\n'));let got='';
s.on('data',d=>{got+=d;if(got.includes('\\n')){console.log('got: '+got.trim());s.end();process.exit(0)}});
s.on('error',e=>{console.error(e.message);process.exit(1)});
s.on('close',()=>{if(!got){console.error('closed without an answer');process.exit(1)}});`;

// A server of the command's own on a port; it says whether it could listen.
const OWN_SERVER = `const [host,port]=process.argv.slice(2);require('net').createServer().on('error',e=>{console.error(e.message);process.exit(1)}).listen(+port,host,()=>{console.log('listening on '+port);process.exit(0)})`;

let h: Harness;
let db: LineServer;
let cache: LineServer;
let v6: LineServer | null = null;
let web: http.Server;
let webPort: number;

beforeAll(async () => {
  h = await harness();
  await h.write('client.cjs', CLIENT);
  await h.write('own.cjs', OWN_SERVER);
  db = await lineServer('db');
  cache = await lineServer('cache');
  v6 = await lineServer('v6', '::1').catch(() => null);
  web = http.createServer((q, s) => s.end(`the web server: ${q.url}`));
  await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
  webPort = (web.address() as AddressInfo).port;
});
afterAll(async () => {
  await h?.ctx.processes?.dispose();
  await h?.cleanup();
  for (const s of [db, cache, v6]) if (s) await new Promise((r) => s.server.close(r));
  await new Promise((r) => web?.close(r));
});

interface Ctx {
  ctx: ToolContext;
  asked: ApprovalRequest[];
  decided: NetworkLogEntry[];
}

/** A tool context whose gate has the user's `rules` and, when given, the project's `config` (untrusted unless `trusted`). */
async function context(rules: PermissionRule[], opts: { config?: object; trusted?: boolean } = {}): Promise<Ctx> {
  const userDir = path.join(h.sandbox, 'user');
  writeUserSettings(userDir, { permissions: rules });
  mkdirSync(path.join(h.root, '.loupe'), { recursive: true });
  writeFileSync(path.join(h.root, '.loupe', 'config.json'), JSON.stringify(opts.config ?? {}, null, 2));
  const user = new UserSettings(userDir);
  if (opts.trusted) await trustCurrentConfig(h.root, user);
  const asked: ApprovalRequest[] = [];
  const decided: NetworkLogEntry[] = [];
  const queue = new ApprovalQueue('wait');
  queue.setResponder(async (req) => {
    asked.push(req);
    return { answer: 'deny', message: 'no' };
  });
  const probe = new SandboxProbe();
  const engine = new PermissionEngine({ root: h.root, project: new ProjectConfig(h.root, user), userRules: user.permissions, sandbox: () => probe.status() });
  const ctx = { ...h.ctx, permissions: new PermissionGate(engine, queue, { persist: async () => undefined, onHostDecision: (e) => decided.push(e) }) };
  return { ctx, asked, decided };
}

const rule = (hosts: string[], pattern = 'node client.cjs *'): PermissionRule => ({ kind: 'network', pattern, action: 'allow', hosts });
const bash = (c: Ctx, command: string) => bashTool.run({ command, description: 'host port' }, c.ctx);

d('a port of this machine a rule names', () => {
  it('127.0.0.1:PORT: a client in the sandbox reaches it with no proxy; the result and the network log say so', async () => {
    const c = await context([rule([`127.0.0.1:${db.port}`])]);
    const before = db.accepted;
    const r = await bash(c, `node client.cjs 127.0.0.1 ${db.port}`);
    expect(r.ok, r.output).toBe(true);
    expect(r.output).toContain('got: db says ping');
    expect(r.data).toMatchObject({ sandboxed: true, network: { reached: [`127.0.0.1:${db.port}`], refused: [] } });
    expect(db.accepted).toBe(before + 1);
    expect(c.asked).toEqual([]);
    expect(c.decided.map((e) => [e.host, e.allowed])).toEqual([[`127.0.0.1:${db.port}`, true]]);
  });

  it('localhost:PORT: reached as localhost, 127.0.0.1 and [::1] inside (this machine answers on 127.0.0.1), by curl with the proxy variables set', async () => {
    const c = await context([rule([`localhost:${webPort}`], 'curl *')]);
    for (const host of ['localhost', '127.0.0.1', '[::1]']) {
      const r = await bash(c, `curl -fsS --max-time 10 http://${host}:${webPort}/${host.replace(/\W/g, '')}`);
      expect(r.ok, `${host}: ${r.output}`).toBe(true);
      expect(r.output).toContain(`the web server: /${host.replace(/\W/g, '')}`);
      expect((r.data as { network: { reached: string[] } }).network.reached).toEqual([`localhost:${webPort}`]);
    }
  });

  it('[::1]:PORT reaches the server on ::1 only; 127.0.0.1 at that port stays the sandbox\'s own', async (t) => {
    if (!v6) return t.skip('no IPv6 loopback on this machine');
    const c = await context([rule([`[::1]:${v6.port}`])]);
    const r = await bash(c, `node client.cjs ::1 ${v6.port}`);
    expect(r.ok, r.output).toBe(true);
    expect(r.output).toContain('got: v6 says ping');
    const other = await bash(c, `node client.cjs 127.0.0.1 ${v6.port}`);
    // Nothing of this machine listens on 127.0.0.1 there: refused as it would be outside, not blamed on the sandbox.
    expect(other.data).toMatchObject({ exit_code: 1, blocked: null });
    expect(other.output).toContain('ECONNREFUSED');
  });

  it('a port no rule names is out of reach; the result names the port and the rule that would allow it', async () => {
    const c = await context([rule([`127.0.0.1:${db.port}`])]);
    const before = cache.accepted;
    const r = await bash(c, `node client.cjs 127.0.0.1 ${cache.port}`);
    expect(r.ok).toBe(false);
    expect(cache.accepted).toBe(before);
    expect(r.error?.code).toBe('SANDBOX_BLOCKED');
    const want = JSON.stringify({ kind: 'network', pattern: 'node client.cjs *', action: 'allow', hosts: [`127.0.0.1:${cache.port}`] });
    expect(r.error?.message).toContain(`network access to 127.0.0.1:${cache.port} (this machine's 127.0.0.1:${cache.port} is outside the sandbox, and no network rule for this command names it)`);
    expect(r.output).toContain(want);
    expect(r.output).toContain(`Network: refused 127.0.0.1:${cache.port}: this machine's 127.0.0.1:${cache.port} is outside the sandbox`);
    expect((r.data as { network: { refused: { host: string; reason: string }[] } }).network.refused).toEqual([
      { host: `127.0.0.1:${cache.port}`, reason: expect.stringContaining(want) },
    ]);
    expect(c.asked).toEqual([]);
  });

  it('with no network rule at all, the result still names the port and the rule to add', async () => {
    const c = await context([]);
    const r = await bash(c, `node client.cjs localhost ${db.port}`);
    expect(r.ok).toBe(false);
    expect(r.error?.code).toBe('SANDBOX_BLOCKED');
    expect(r.output).toContain(JSON.stringify({ kind: 'network', pattern: 'node client.cjs *', action: 'allow', hosts: [`127.0.0.1:${db.port}`] }));
    expect(r.data).toMatchObject({ network: { reached: [], refused: [{ host: `127.0.0.1:${db.port}` }] } });
  });

  it('a port nothing of this machine listens on is not blamed on the sandbox', async () => {
    const free = await lineServer('gone');
    await new Promise((r) => free.server.close(r));
    const r = await bash(await context([]), `node client.cjs 127.0.0.1 ${free.port}`);
    expect(r.error).toBeUndefined();
    expect(r.data).toMatchObject({ exit_code: 1, blocked: null, network: null });
  });

  it('a port without a number, a wildcard, another loopback address or the next port forwards nothing', async () => {
    const c = await context([rule(['127.0.0.1', 'localhost', '*', `*:${db.port}`, `127.0.0.2:${db.port}`, `127.0.0.1:${db.port + 1}`, `db.test:${db.port}`])]);
    const before = db.accepted;
    const r = await bash(c, `node client.cjs 127.0.0.1 ${db.port}`);
    expect(r.ok).toBe(false);
    expect(db.accepted).toBe(before);
  });

  it('a deny rule that names the port closes the network for the command, and the result names that rule', async () => {
    const deny: PermissionRule = { kind: 'network', pattern: 'node *', action: 'deny', hosts: [`127.0.0.1:${db.port}`] };
    const c = await context([deny, rule([`127.0.0.1:${db.port}`, `127.0.0.1:${cache.port}`])]);
    const before = db.accepted + cache.accepted;
    const denied = await bash(c, `node client.cjs 127.0.0.1 ${db.port}`);
    expect(denied.error?.code).toBe('SANDBOX_BLOCKED');
    expect(denied.error?.message).toContain(`this machine's 127.0.0.1:${db.port} is refused by the rule`);
    // A network deny rule for a command closes its whole network (as for hosts through the proxy).
    expect((await bash(c, `node client.cjs 127.0.0.1 ${cache.port}`)).error?.code).toBe('SANDBOX_BLOCKED');
    expect(db.accepted + cache.accepted).toBe(before);
  });

  it("a server of the command's own cannot take a forwarded port (it is this machine's); every other port is the sandbox's own", async () => {
    const c = await context([rule([`127.0.0.1:${db.port}`], 'node own.cjs *')]);
    const taken = await bash(c, `node own.cjs 127.0.0.1 ${db.port}`);
    expect(taken.ok).toBe(false);
    expect(taken.error?.code).toBe('SANDBOX_BLOCKED');
    expect(taken.error?.message).toContain(`listening on 127.0.0.1:${db.port} (port ${db.port} inside the sandbox is this machine's 127.0.0.1:${db.port}, which a network rule forwards in`);
    // cache.port is taken on this machine too, but not named: inside it is free.
    const own = await bash(c, `node own.cjs 127.0.0.1 ${cache.port}`);
    expect(own.ok, own.output).toBe(true);
    expect(own.output).toContain(`listening on ${cache.port}`);
  });

  it("a rule in the folder's own config forwards the port only once the folder is trusted", async () => {
    const config = { permissions: [rule([`127.0.0.1:${db.port}`])] };
    const before = db.accepted;
    const untrusted = await bash(await context([], { config }), `node client.cjs 127.0.0.1 ${db.port}`);
    expect(untrusted.error?.code).toBe('SANDBOX_BLOCKED');
    expect(db.accepted).toBe(before);
    expect(untrusted.output).toContain(`The folder's own .loupe/config.json names it, but its rules are off until the folder is trusted.`);
    const trusted = await bash(await context([], { config, trusted: true }), `node client.cjs 127.0.0.1 ${db.port}`);
    expect(trusted.ok, trusted.output).toBe(true);
    expect(trusted.output).toContain('got: db says ping');
  });

  it('the grant still needs every part of the line: a part without a network rule keeps the port closed', async () => {
    const c = await context([rule([`127.0.0.1:${db.port}`])]);
    const before = db.accepted;
    const r = await bash(c, `node client.cjs 127.0.0.1 ${db.port} && ls`);
    expect(r.error?.code).toBe('SANDBOX_BLOCKED');
    expect(db.accepted).toBe(before);
    expect(r.error?.message).toContain(`a network rule names this machine's 127.0.0.1:${db.port}, but the network opens only when every command of the line has one, and "ls" has none`);
    expect(r.output).toContain(JSON.stringify({ kind: 'network', pattern: 'ls *', action: 'allow', hosts: [`127.0.0.1:${db.port}`] }));
  });
});

d('a port of this machine, from a background process', () => {
  it('reaches the named port; the bridge holds it inside, so it is not listed as the process\'s own; its own server keeps its port', async () => {
    const c = await context([rule([`127.0.0.1:${db.port}`], 'node *')]);
    await h.write('both.cjs', `${CLIENT.replace("process.exit(0)", "require('net').createServer().listen(" + cache.port + ",'127.0.0.1',()=>console.log('own server up'))")}`);
    const r = await bashTool.run({ command: `node both.cjs 127.0.0.1 ${db.port}`, description: 'bg', run_in_background: true, wait_for: { regex: 'own server up', timeout: 60_000 } }, c.ctx);
    expect(r.ok, r.output).toBe(true);
    expect(r.output).toContain('got: db says ping');
    const data = r.data as { process_id: string; ports: number[]; forwards: { port: number; host_port: number }[]; network: { reached: string[] } };
    expect(data.network.reached).toEqual([`127.0.0.1:${db.port}`]);
    // Its own server on cache.port (taken on this machine): listed and forwarded out to another port.
    const listed = await waitFor(async () => {
      const info = c.ctx.processes!.get(data.process_id)!.info();
      return info.ports.includes(cache.port) ? info : null;
    });
    expect(listed.ports).not.toContain(db.port);
    expect(listed.forwards.find((f) => f.port === cache.port)?.host_port).not.toBe(cache.port);
    await c.ctx.processes!.kill(data.process_id);
  });

  it('a port no rule names is reported on the process, with the rule that would allow it', async () => {
    const c = await context([rule([`127.0.0.1:${db.port}`], 'node *')]);
    const r = await bashTool.run({ command: `node client.cjs 127.0.0.1 ${cache.port}`, description: 'bg', run_in_background: true, wait_for: { exit: true, timeout: 60_000 } }, c.ctx);
    const id = (r.data as { process_id: string }).process_id;
    const info = await waitFor(async () => {
      const i = c.ctx.processes!.get(id)!.info();
      return i.network?.refused.length ? i : null;
    });
    expect(info.network!.refused).toEqual([{ host: `127.0.0.1:${cache.port}`, reason: expect.stringContaining(`"hosts":["127.0.0.1:${cache.port}"]`) }]);
  });
});

d('a port of this machine, from a sandboxed MCP server', () => {
  it('its network.hosts forward the ports they name (through the same guard); no other port of this machine answers', async () => {
    const t = await tempWorkspace('loupe-mcp-ports-');
    writeServers(t.home, {
      db: fixture('tcpProbe.cjs', { network: { hosts: [`127.0.0.1:${db.port}`] } }),
      none: fixture('tcpProbe.cjs'),
    });
    const services = testServices(t.root, { configDir: t.home });
    try {
      await services.mcp.sync();
      expect(services.mcp.list().map((x) => [x.name, x.status, x.sandboxed])).toEqual(
        expect.arrayContaining([
          ['db', 'ready', true],
          ['none', 'ready', true],
        ]),
      );
      const call = async (server: string, port: number) => {
        const r = await services.mcp.call(server, 'connect', { host: '127.0.0.1', port }, { signal: new AbortController().signal });
        return (r.content as { text: string }[]).map((c) => c.text).join('');
      };
      const before = cache.accepted;
      expect(await call('db', db.port)).toBe('got: db says ping');
      expect(await call('db', cache.port)).toMatch(/^failed: connect ECONNREFUSED/);
      expect(await call('none', db.port)).toMatch(/^failed: connect ECONNREFUSED/);
      expect(cache.accepted).toBe(before);
      expect(services.networkLog).toEqual(expect.arrayContaining([expect.objectContaining({ command: 'MCP server db', host: `127.0.0.1:${db.port}`, allowed: true })]));
    } finally {
      await services.dispose();
      await t.cleanup();
    }
  });
});

async function waitFor<T>(probe: () => Promise<T | null>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error('never came');
    await new Promise((r) => setTimeout(r, 100));
  }
}
