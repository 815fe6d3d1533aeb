// Only the ports of this machine a rule names are reachable from the sandbox, for generated rules
// (docs/security.md, "The sandbox's network"). Real bwrap, real servers on this machine's
// loopback, the real gate and the bash tool: each run writes generated network rules (named
// ports in every spelling, ports without numbers, wildcards, other loopback addresses, the port
// next door, rules for another command, deny rules) and runs a probe in the sandbox that dials
// every server port, and a closed one, on 127.0.0.1 and ::1 — and, playing a hostile command, reads
// its bridge's token from /proc and asks the host itself for each of them with `local` lines in
// odd spellings. What answered must be exactly what the rules forward.
import fc from 'fast-check';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bashTool } from '../../src/main/agent/tools/bash';
import { ApprovalQueue } from '../../src/main/services/permissions/approvalQueue';
import { PermissionGate } from '../../src/main/services/permissions/permissionGate';
import { ProjectConfig } from '../../src/main/services/permissions/projectConfig';
import { PermissionEngine } from '../../src/main/services/permissions/ruleEngine';
import type { PermissionRule } from '../../src/main/services/permissions/types';
import { SandboxProbe, probeSandbox } from '../../src/main/services/sandbox/probe';
import { UserSettings } from '../../src/main/services/settings/userSettings';
import { harness, type Harness } from '../support/toolHarness';
import { writeUserSettings } from '../support/userSettings';

const availability = await probeSandbox();
const d = availability.available && availability.kind === 'bwrap' ? describe : describe.skip;

// Dials each target directly, then (when it finds its bridge) through the bridge's own socket
// with the token, as a hostile command could. Prints what answered.
const PROBE = `const net=require('net'),fs=require('fs'),path=require('path');
const {direct,lines}=JSON.parse(fs.readFileSync('targets.json','utf8'));
function bridge(){let pid=process.ppid;for(let i=0;i<6&&pid>1;i++){try{
const env=fs.readFileSync('/proc/'+pid+'/environ','utf8');const m=/(?:^|\\0)LOUPE_NET_TOKEN=([0-9a-f]+)/.exec(env);
if(m)return{token:m[1],dir:fs.readFileSync('/proc/'+pid+'/cmdline','utf8').split('\\0')[2]};
const st=fs.readFileSync('/proc/'+pid+'/stat','utf8');pid=+st.slice(st.lastIndexOf(')')+2).split(' ')[1]}catch{return null}}return null}
function talk(to,first){return new Promise(res=>{let got='',done=false;const s=net.connect(to,()=>s.write(first+'ping\\n'));
const end=v=>{if(done)return;done=true;clearTimeout(t);s.destroy();res(v)};const t=setTimeout(()=>end('timeout'),8000);
s.on('data',x=>{got+=x;if(/says ping\\n/.test(got))end(got.trim())});s.on('error',()=>end('no'));s.on('close',()=>end(got.trim()||'no'))})}
(async()=>{const out={};const b=bridge();out.bridge=!!b;
for(const [h,p] of direct)out['direct '+h+' '+p]=await talk({host:h,port:p},'');
if(b)for(const l of lines)out['line '+l]=await talk(path.join(b.dir,'host.sock'),b.token+' local '+l+'\\n');
console.log('RESULT '+JSON.stringify(out))})();`;

interface Srv {
  server: net.Server;
  port: number;
}

async function lineServer(name: string, host: string): Promise<Srv> {
  const server = net.createServer((s) => {
    s.on('error', () => s.destroy());
    s.on('data', (x) => {
      if (String(x).includes('\n')) s.write(`${name} says ping\n`);
    });
  });
  await new Promise<void>((ok, no) => server.once('error', no).listen(0, host, ok));
  return { server, port: (server.address() as AddressInfo).port };
}

let h: Harness;
let a: Srv;
let b: Srv;
let v6: Srv | null;
let closed: number;
/** Which server answers on this machine at address:port. */
const answers = new Map<string, string>();

beforeAll(async () => {
  h = await harness();
  await h.write('probe.cjs', PROBE);
  a = await lineServer('a', '127.0.0.1');
  b = await lineServer('b', '127.0.0.1');
  v6 = await lineServer('v6', '::1').catch(() => null);
  const gone = await lineServer('gone', '127.0.0.1');
  closed = gone.port;
  await new Promise((r) => gone.server.close(r));
  answers.set(`127.0.0.1 ${a.port}`, 'a');
  answers.set(`127.0.0.1 ${b.port}`, 'b');
  if (v6) answers.set(`::1 ${v6.port}`, 'v6');
});
afterAll(async () => {
  await h?.cleanup();
  for (const s of [a, b, v6]) if (s) await new Promise((r) => s.server.close(r));
});

type Rule = { pattern: string; action: 'allow' | 'ask' | 'deny'; hosts?: string[] };

/** The model: what the rules forward, as `listen address -> addresses of this machine tried`. */
function forwards(rules: Rule[]): Map<string, string[]> {
  const mine = rules.filter((r) => r.pattern === 'node probe.cjs' || r.pattern === 'node *');
  const granted = mine.some((r) => r.action === 'allow') && !mine.some((r) => r.action === 'deny');
  const out = new Map<string, string[]>();
  if (!granted) return out;
  for (const r of mine) {
    for (const e of r.hosts ?? []) {
      const m = /^(?:\[(::1)\]|(127\.\d+\.\d+\.\d+|localhost)):(\d+)$/.exec(e);
      if (!m) continue;
      const host = m[1] ?? m[2]!;
      const all = host === 'localhost' ? ['127.0.0.1', '::1'] : [host];
      for (const at of all) if (!out.has(`${at} ${m[3]}`)) out.set(`${at} ${m[3]}`, [at, ...all.filter((x) => x !== at)]);
    }
  }
  return out;
}

/** Who answers a connection to inside `address port`, by the model (or 'no'). */
function expected(model: Map<string, string[]>, address: string, port: number): string {
  const tries = model.get(`${address} ${port}`);
  if (!tries) return 'no';
  for (const t of tries) {
    const who = answers.get(`${t} ${port}`);
    if (who) return `${who} says ping`;
  }
  return 'no';
}

d('ports of this machine reachable from the sandbox', () => {
  it('are exactly the ones generated rules forward, dialled directly or asked for through the bridge', async () => {
    const ports = [a.port, b.port, closed, ...(v6 ? [v6.port] : [])];
    const port = fc.constantFrom(...ports);
    const entry = fc.oneof(
      { weight: 6, arbitrary: fc.tuple(fc.constantFrom('127.0.0.1', 'localhost', '[::1]'), port).map(([host, p]) => `${host}:${p}`) },
      { weight: 3, arbitrary: fc.tuple(fc.constantFrom('127.0.0.2', '*', 'db.test', '0.0.0.0', '[::ffff:127.0.0.2]', '10.0.0.1'), port).map(([host, p]) => `${host}:${p}`) },
      { weight: 1, arbitrary: port.map((p) => `127.0.0.1:${p + 1}`) },
      { weight: 2, arbitrary: fc.constantFrom('127.0.0.1', 'localhost', '::1', '*', '*.test', 'db.test') },
    );
    const rule = fc.record(
      {
        pattern: fc.constantFrom('node probe.cjs', 'node *', 'curl *'),
        action: fc.constantFrom<Rule['action']>('allow', 'allow', 'allow', 'ask', 'deny'),
        hosts: fc.array(entry, { minLength: 0, maxLength: 4 }),
      },
      { requiredKeys: ['pattern', 'action'] },
    );
    const userDir = path.join(h.sandbox, 'user');
    // Without IPv6 on this machine, only the IPv4 loopback is dialled.
    const direct = ports.flatMap((p) => [['127.0.0.1', p], ...(v6 ? [['::1', p]] : [])]);
    // The host's end keys on the exact address the bridge listens on: no other spelling reaches.
    const spellings = (p: number) => [`127.0.0.1 ${p}`, `::1 ${p}`, `localhost ${p}`, `::ffff:127.0.0.1 ${p}`, `0.0.0.0 ${p}`, `127.000.000.001 ${p}`, `127.0.0.1 0${p}`, `[::1] ${p}`, `127.0.0.1 ${p} x`];
    const lines = ports.flatMap(spellings).filter((l) => v6 || !l.startsWith('::1 '));
    await h.write('targets.json', JSON.stringify({ direct, lines }));
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(rule, { minLength: 1, maxLength: 3 }), async (rules) => {
        runs++;
        writeUserSettings(userDir, { permissions: rules.map((r) => ({ kind: 'network', ...r })) as PermissionRule[] });
        const user = new UserSettings(userDir);
        const queue = new ApprovalQueue('wait');
        // A rule that asks is answered yes: what decides reachability is what is forwarded.
        queue.setResponder(async () => ({ answer: 'once' }));
        const probe = new SandboxProbe();
        const engine = new PermissionEngine({ root: h.root, project: new ProjectConfig(h.root, user), userRules: user.permissions, sandbox: () => probe.status() });
        const ctx = { ...h.ctx, permissions: new PermissionGate(engine, queue, { persist: async () => undefined }) };
        const r = await bashTool.run({ command: 'node probe.cjs', description: 'probe', timeout: 120_000 }, ctx);
        const m = /RESULT (.*)/.exec(r.output);
        expect(m, r.output).not.toBeNull();
        const got = JSON.parse(m![1]!) as Record<string, string | boolean>;
        const model = forwards(rules);
        const want: Record<string, string | boolean> = { bridge: got.bridge as boolean };
        for (const [host, p] of direct) want[`direct ${host} ${p}`] = expected(model, host as string, p as number);
        if (got.bridge) for (const l of lines) want[`line ${l}`] = /^(127\.0\.0\.1|::1) [1-9]\d*$/.test(l) ? expected(model, l.split(' ')[0]!, Number(l.split(' ')[1])) : 'no';
        expect(got, JSON.stringify(rules)).toEqual(want);
        // Whatever a rule says, the bridge exists only with a grant for the command.
        expect(got.bridge).toBe(rules.some((x) => x.action === 'allow' && x.pattern !== 'curl *') && !rules.some((x) => x.action === 'deny' && x.pattern !== 'curl *'));
      }),
      { numRuns: 25 },
    );
    expect(runs).toBe(25);
  }, 600_000);
});
