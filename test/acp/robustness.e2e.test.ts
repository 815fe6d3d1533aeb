// A client that breaks the protocol against the real `loupe acp`: malformed frames (generated),
// a line over the size limit, an unknown method, a request before `initialize`, bad params, a
// prompt or a load for a session that does not exist. Each gets a JSON-RPC error, the process
// stays up and answers the next request, stdout carries nothing but protocol, and nothing is
// written in the folder. Needs `npm run build` first.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { acpWorkspace, useAcpProcesses, type AcpProcess } from '../support/acpClient';
import { useCliFixture } from '../support/cli';

const fx = useCliFixture('loupe-acp-bad-');
const startAcp = useAcpProcesses();

async function tree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const abs = path.join(e.parentPath, e.name);
    out[path.relative(dir, abs)] = e.isFile() ? await readFile(abs, 'utf8') : '<dir>';
  }
  return out;
}

const errorsWithNullId = (p: AcpProcess) => p.frames.filter((f) => f.id === null && 'error' in f).map((f) => (f.error as { code: number }).code);

describe('loupe acp against a client that breaks the protocol', () => {
  it('answers malformed frames with JSON-RPC errors, stays up, and writes nothing', async () => {
    const { ws, env } = await acpWorkspace(fx);
    await writeFile(path.join(ws, 'keep.txt'), 'mine\n');
    const before = await tree(ws);
    const p = await startAcp({ cwd: ws, env });

    // The test client's SDK says on the console that it got answers it did not ask for: quiet here.
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    // Not JSON, a batch, and JSON that is no message: parse error and invalid request, id null.
    p.raw('{"jsonrpc":"2.0","id":1,"method":\n');
    p.raw('[{"jsonrpc":"2.0","id":2,"method":"session/new"}]\n');
    p.raw('"just a string"\n');
    await p.frame(() => errorsWithNullId(p).length >= 3);
    expect(errorsWithNullId(p)).toEqual([-32700, -32600, -32600]);

    // Generated garbage: random bytes, truncated and random JSON values, one per line.
    const garbage = fc.sample(
      fc.oneof(
        fc.string({ maxLength: 60 }).map((s) => s.replace(/\n/g, ' ')),
        fc.jsonValue().map((v) => JSON.stringify(v)),
        fc.jsonValue().map((v) => JSON.stringify(v).slice(0, 7)),
        // String ids: the test client's own requests are numbered.
        fc.record({ jsonrpc: fc.constant('2.0'), id: fc.string().map((s) => `g-${s}`), method: fc.constantFrom('session/prompt', 'session/new', 'session/load', 'session/set_mode', 'nope'), params: fc.jsonValue() }).map((v) => JSON.stringify(v)),
      ),
      { numRuns: 150, seed: 44 },
    );
    for (const g of garbage) p.raw(`${g}\n`);
    // One line over the size limit is dropped and answered, not buffered until the connection dies.
    p.raw(`{"jsonrpc":"2.0","id":"huge","method":"session/new","params":{"cwd":"${'x'.repeat(33 * 1024 * 1024)}"}}\n`);
    // Answered in order: once this is, everything before it has been.
    await p.agent.request('session/list', {});
    expect(new Set(errorsWithNullId(p))).toEqual(new Set([-32700, -32600]));
    expect(p.frames.some((f) => f.id === 'huge')).toBe(false);
    quiet.mockRestore();

    // Unknown method, bad params, unknown sessions: errors, in that order of codes.
    await expect(p.agent.request('loupe/nope', {})).rejects.toMatchObject({ code: -32601 });
    await expect(p.agent.request('session/new', { cwd: 'relative/path', mcpServers: [] })).rejects.toMatchObject({ code: -32602 });
    await expect(p.agent.request('session/new', { cwd: path.join(ws, 'missing'), mcpServers: [] })).rejects.toMatchObject({ code: -32602 });
    await expect(p.agent.request('session/prompt', { sessionId: 'ses-nope', prompt: [{ type: 'text', text: 'hi' }] })).rejects.toMatchObject({ code: -32002 });
    await expect(p.agent.request('session/load', { sessionId: 'ses-nope', cwd: ws, mcpServers: [] })).rejects.toMatchObject({ code: -32002 });
    await expect(p.agent.request('session/set_mode', { sessionId: 'ses-nope', modeId: 'plan' })).rejects.toMatchObject({ code: -32002 });
    await p.agent.notify('session/cancel', { sessionId: 'ses-nope' });
    expect(fx.llm.completions).toHaveLength(0);
    expect(await tree(ws)).toEqual(before);

    // Still up: a session opens and a prompt is answered.
    const s = await p.agent.request('session/new', { cwd: ws, mcpServers: [] });
    await expect(p.agent.request('session/set_mode', { sessionId: s.sessionId, modeId: 'yolo' })).rejects.toMatchObject({ code: -32602 });
    fx.llm.enqueue({ content: 'Still here.' });
    expect((await p.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'hello' }] })).stopReason).toBe('end_turn');
    expect(p.child.exitCode).toBeNull();
    // Every frame on stdout was protocol, and fit its schema.
    expect(p.problems).toEqual([]);
    expect(await p.close()).toBe(0);
  }, 120_000);

  it('refuses requests before initialize with a JSON-RPC error', async () => {
    const { ws, env } = await acpWorkspace(fx);
    const p = await startAcp({ cwd: ws, env, initialize: false });
    await expect(p.agent.request('session/new', { cwd: ws, mcpServers: [] })).rejects.toMatchObject({ code: -32600 });
    expect((await p.agent.request('initialize', { protocolVersion: 1 })).protocolVersion).toBe(1);
    // A client asking for a later version gets the one Loupe speaks.
    expect((await p.agent.request('initialize', { protocolVersion: 7 })).protocolVersion).toBe(1);
    expect(p.problems).toEqual([]);
  });
});
