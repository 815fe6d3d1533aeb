// Background processes: process_output's last 200 lines of a 100 MB log (budget 20 ms p50), and
// what the sandbox's network adds to one HTTP GET (budget 2 ms p50 each): from this machine to
// a sandboxed server through the port forward, from a sandboxed client through the filtering
// proxy, and from a sandboxed client to a port of this machine a rule names, each against the
// same GET without the sandbox. Servers on 127.0.0.1 only.
import { spawnSync } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundleSource, percentile, report, tempDir } from './lib.mjs';

const dir = await tempDir('loupe-bench-proc-');
const ws = await tempDir('loupe-bench-proc-ws-');
const { ProcessManager } = await import(pathToFileURL(await bundleSource('src/main/services/processes/processManager.ts', dir, 'pm.mjs')).href);
const { runCommand } = await import(pathToFileURL(await bundleSource('src/main/services/shell/commandRunner.ts', dir, 'runner.mjs')).href);
const { probeSandbox } = await import(pathToFileURL(await bundleSource('src/main/services/sandbox/probe.ts', dir, 'probe.mjs')).href);
const pm = new ProcessManager({ root: ws });
const node = JSON.stringify(process.execPath);

// --- process_output tail of a 100 MB log ---------------------------------------------------
{
  // 100 MB of numbered 100-byte lines, written by the process itself.
  const gen = `const b=Buffer.alloc(100*10000);let n=0;function w(){if(n>=1e6)return;for(let i=0;i<10000;i++,n++){b.write(String(n).padStart(10,'0')+' '+'x'.repeat(88)+'\\\\n',i*100)}process.stdout.write(b,w)}w()`;
  const p = await pm.start({ command: `${node} -e "${gen}"`, cwd: ws, sessionId: 'bench' }, true);
  const w = await pm.wait(p.id, { exit: true }, 300_000);
  if (!w.satisfied || p.info().output_bytes !== 100_000_000) throw new Error(`log not written: ${JSON.stringify(p.info())}`);
  const times = [];
  for (let i = 0; i < 60; i++) {
    const t0 = performance.now();
    const r = pm.output(p.id, { reader: 'bench', tail: 200, maxBytes: 30 * 1024 });
    times.push(performance.now() - t0);
    if (!r.text.endsWith(`${'0999999'} ${'x'.repeat(88)}\n`.padStart(100, '0'))) throw new Error('wrong tail');
  }
  report('process_output_tail200_100mb_p50', percentile(times.slice(10), 50), 'ms', { budget: 20, log_bytes: 100_000_000 });
}

// --- HTTP GET: port forward and proxy -----------------------------------------------------
const status = await probeSandbox();
if (!status.available || status.kind !== 'bwrap') {
  console.error(`processes bench: no bubblewrap here (${status.reason}); forward and proxy figures skipped`);
} else {
  const GETS = 300;
  const get = (port, opts = {}) =>
    new Promise((resolve, reject) => {
      const t0 = performance.now();
      http.get({ host: '127.0.0.1', port, path: '/', agent: false, ...opts }, (res) => {
        res.resume();
        res.on('end', () => resolve(performance.now() - t0));
      }).on('error', reject);
    });
  const p50Of = async (fn) => {
    const t = [];
    for (let i = 0; i < GETS; i++) t.push(await fn());
    return percentile(t.slice(30), 50);
  };

  // A plain server on this machine: the baseline, and the "internet" for the proxy.
  const plain = http.createServer((q, s) => s.end('ok'));
  await new Promise((r) => plain.listen(0, '127.0.0.1', r));
  const plainPort = plain.address().port;

  // Forward: the same server, sandboxed, reached from here through 127.0.0.1:<host_port>.
  const serverJs = path.join(ws, 'server.cjs');
  await writeFile(serverJs, `require('http').createServer((q,s)=>s.end('ok')).listen(0,'127.0.0.1',function(){console.log('port '+this.address().port)})`);
  const sp = await pm.start({ command: `${node} server.cjs`, cwd: ws, sessionId: 'bench', sandbox: { root: ws, grant: { network: false, networkRule: null } } }, true);
  const line = await pm.wait(sp.id, { regex: 'port \\d+' }, 60_000);
  const inner = Number(/port (\d+)/.exec(line.matched_line)[1]);
  await pm.wait(sp.id, { port: inner }, 60_000);
  const hostPort = sp.info().forwards.find((f) => f.port === inner).host_port;
  const direct = await p50Of(() => get(plainPort));
  const forwarded = await p50Of(() => get(hostPort));
  report('port_forward_get_p50', forwarded, 'ms', { direct_p50: Math.round(direct * 1000) / 1000, gets: GETS });
  report('port_forward_added_p50', forwarded - direct, 'ms', { budget: 2 });

  // Proxy: a client inside the sandbox GETs bench.test (a rule names it; it resolves here) through
  // HTTP_PROXY; the same client outside GETs the server directly. Each prints its own p50.
  const client = path.join(ws, 'client.cjs');
  await writeFile(
    client,
    `const http=require('http');const u=process.env.HTTP_PROXY&&new URL(process.env.HTTP_PROXY);const t=[];
(async()=>{for(let i=0;i<${GETS};i++){const t0=performance.now();await new Promise((ok,no)=>http.get(u?{host:u.hostname,port:u.port,path:'http://bench.test:${plainPort}/',agent:false}:{host:'127.0.0.1',port:${plainPort},path:'/',agent:false},r=>{r.resume();r.on('end',ok)}).on('error',no));t.push(performance.now()-t0)}
t.splice(0,30);t.sort((a,b)=>a-b);console.log('p50 '+t[Math.floor(t.length/2)])})()`,
  );
  const p50From = (r) => {
    const m = /p50 ([\d.]+)/.exec(r.text);
    if (r.exitCode !== 0 || !m) throw new Error(`client failed: ${r.text}`);
    return Number(m[1]);
  };
  const outside = p50From(await runCommand({ command: `${node} client.cjs`, cwd: ws, timeoutMs: 120_000 }));
  const guard = { decide: async (t) => ({ allowed: t.host === 'bench.test', named: true, reason: 'bench' }) };
  const lookup = async () => [{ address: '127.0.0.1', family: 4 }];
  const proxied = p50From(await runCommand({ command: `${node} client.cjs`, cwd: ws, timeoutMs: 120_000, sandbox: { root: ws, grant: { network: true, networkRule: 'bench' }, network: { guard, lookup } } }));
  report('proxy_get_p50', proxied, 'ms', { direct_p50: Math.round(outside * 1000) / 1000, gets: GETS });
  report('proxy_added_p50', proxied - outside, 'ms', { budget: 2 });

  // A port of this machine a rule names: a client inside GETs 127.0.0.1:<port> directly, as it
  // would outside; the bridge listens on that port inside and the host connects to its own.
  await writeFile(
    path.join(ws, 'direct.cjs'),
    `const http=require('http');const t=[];
(async()=>{for(let i=0;i<${GETS};i++){const t0=performance.now();await new Promise((ok,no)=>http.get({host:'127.0.0.1',port:${plainPort},path:'/',agent:false},r=>{r.resume();r.on('end',ok)}).on('error',no));t.push(performance.now()-t0)}
t.splice(0,30);t.sort((a,b)=>a-b);console.log('p50 '+t[Math.floor(t.length/2)])})()`,
  );
  const outsideDirect = p50From(await runCommand({ command: `${node} direct.cjs`, cwd: ws, timeoutMs: 120_000 }));
  const hostPorts = async () => [{ host: '127.0.0.1', port: plainPort, listen: '127.0.0.1', connect: ['127.0.0.1'] }];
  const named = p50From(await runCommand({ command: `${node} direct.cjs`, cwd: ws, timeoutMs: 120_000, sandbox: { root: ws, grant: { network: true, networkRule: 'bench' }, network: { guard: { decide: async () => ({ allowed: true, named: true, reason: 'bench' }), hostPorts }, lookup } } }));
  report('host_port_get_p50', named, 'ms', { direct_p50: Math.round(outsideDirect * 1000) / 1000, gets: GETS });
  report('host_port_added_p50', named - outsideDirect, 'ms', { budget: 2 });
  plain.close();
}
await pm.dispose();
spawnSync('true');
await rm(dir, { recursive: true, force: true });
await rm(ws, { recursive: true, force: true });
