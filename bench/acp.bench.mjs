// `loupe acp` as an editor meets it: spawn to `initialize` answered, the first `session/new` of a
// folder, and a 10,000-token answer streamed at ~1,000 tokens/s (a fast local model) — the time
// to the first message chunk, the whole turn, how many `session/update`s carried it (the host
// joins tokens per 16 ms) and the CPU the Loupe process spent. The client is the official SDK's.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { client, ndJsonStream } from '@agentclientprotocol/sdk';
import { ROOT, report, streamingModel, tempDir } from './lib.mjs';

const TOKENS = 10_000;

/** CPU time (user + system) of a Linux process so far, in ms; null elsewhere. */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return null;
  }
}

const ws = await tempDir('loupe-bench-acp-');
writeFileSync(path.join(ws, 'README.md'), '# bench\n');
const home = await tempDir('loupe-bench-acp-home-');
const model = await streamingModel(() => Array.from({ length: TOKENS }, (_, i) => ` token${i}`));
const started = performance.now();
const child = spawn(process.execPath, [path.join(ROOT, 'bin/loupe.mjs'), 'acp', '--cwd', ws], {
  env: { ...process.env, LOUPE_HOME: home, LOUPE_KEYCHAIN: 'off', OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'k', LOUPE_MODEL: 'bench', LOUPE_LSP: 'off' },
  stdio: ['pipe', 'pipe', 'ignore'],
});
let updates = 0;
let firstChunk = 0;
const connection = client({ name: 'bench' })
  .onNotification('session/update', ({ params }) => {
    updates++;
    if (!firstChunk && params.update.sessionUpdate === 'agent_message_chunk') firstChunk = performance.now();
  })
  .connect(ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)));
await connection.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
report('acp.initialize', performance.now() - started, 'ms', { note: 'spawn to initialize answered' });
let t = performance.now();
const { sessionId } = await connection.agent.request('session/new', { cwd: ws, mcpServers: [] });
report('acp.session_new', performance.now() - t, 'ms', { note: 'first session of a folder' });
const cpuBefore = cpuMs(child.pid);
updates = 0;
t = performance.now();
const { stopReason } = await connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'stream' }] });
const total = performance.now() - t;
if (stopReason !== 'end_turn') throw new Error(`the turn ended ${stopReason}`);
report('acp.first_chunk', firstChunk - t, 'ms', { tokens: TOKENS });
report('acp.stream_turn', total, 'ms', { tokens: TOKENS, note: 'the model sends ~1,000 tokens/s' });
report('acp.stream_updates', updates, 'count', { tokens: TOKENS });
const cpuAfter = cpuMs(child.pid);
if (cpuBefore !== null && cpuAfter !== null) report('acp.stream_cpu', cpuAfter - cpuBefore, 'ms', { tokens: TOKENS, note: "Loupe's CPU for the turn" });
connection.close();
child.stdin.end();
await new Promise((r) => child.once('exit', r));
model.server.close();
