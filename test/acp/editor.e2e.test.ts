// `loupe acp` and the editor's own files: a client that offers `fs.readTextFile` has its unsaved
// buffer read by the agent; one that offers `fs.writeTextFile` is told of each write into a
// buffer that still holds what was there before (never over the person's unsaved changes), while
// the write itself goes through the modification log. Commands run in Loupe, never in the
// client's terminal. A prompt's links and embedded files reach the model under the read rules.
// Needs `npm run build` first.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { call, toolMessages } from '../agent/agentHarness';
import { acpWorkspace, useAcpProcesses } from '../support/acpClient';
import { useCliFixture } from '../support/cli';
import { userPrompt } from '../support/scriptedLlm';

const fx = useCliFixture('loupe-acp-editor-');
const startAcp = useAcpProcesses();
let ws: string;
let env: Record<string, string | undefined>;

beforeEach(async () => {
  ({ ws, env } = await acpWorkspace(fx, { permissions: [{ kind: 'bash', pattern: 'echo *', action: 'allow' }, { kind: 'read', pattern: '.env', action: 'deny' }] }));
});

describe("loupe acp and the editor's files", () => {
  it("reads the editor's unsaved buffer, tells a clean buffer of each write, never a dirty one, and runs commands itself", async () => {
    await writeFile(path.join(ws, 'a.ts'), 'const a = 1;\n');
    await writeFile(path.join(ws, 'b.ts'), 'let b = 1;\n');
    await writeFile(path.join(ws, 'c.ts'), 'let c = 1;\n');
    const p = await startAcp({ cwd: ws, env, capabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true } });
    // a.ts and c.ts are open in the editor with changes not saved; b.ts is open and clean.
    p.buffers.set(path.join(ws, 'a.ts'), 'const a = 1;\nconst unsaved = 2;\n');
    p.buffers.set(path.join(ws, 'c.ts'), 'let c = 1;\n// typing\n');
    p.buffers.set(path.join(ws, 'b.ts'), 'let b = 1;\n');
    const { sessionId } = await p.agent.request('session/new', { cwd: ws, mcpServers: [] });
    fx.llm.enqueue(
      { toolCalls: [call('r1', 'read_file', { path: 'a.ts' }), call('r2', 'read_file', { path: 'b.ts' }), call('r3', 'read_file', { path: 'c.ts' })] },
      { toolCalls: [call('e1', 'edit_file', { path: 'b.ts', old_str: 'b = 1', new_str: 'b = 2' })] },
      // c.ts was read from the editor: the first edit is refused (the disk differs), the retry lands on the disk.
      { toolCalls: [call('e2', 'edit_file', { path: 'c.ts', old_str: 'c = 1', new_str: 'c = 2' })] },
      { toolCalls: [call('e3', 'edit_file', { path: 'c.ts', old_str: 'c = 1', new_str: 'c = 2' })] },
      { toolCalls: [call('x1', 'bash', { command: 'echo ran > ran.txt', description: 'run' })] },
      { content: 'Done.' },
    );
    const res = await p.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'look and change' }] });
    expect(res.stopReason).toBe('end_turn');
    const seen = toolMessages(fx.llm.completions[1].body);
    expect(seen.r1).toContain('const unsaved = 2;');
    expect(seen.r1).toContain("editor's copy");
    expect(seen.r2).not.toContain("editor's copy");
    expect(p.frames.filter((f) => f.method === 'fs/read_text_file').map((f) => (f.params as { path: string }).path)).toEqual(expect.arrayContaining([path.join(ws, 'a.ts'), path.join(ws, 'b.ts')]));
    const later = toolMessages(fx.llm.completions.at(-1)!.body);
    expect(later.e2).toContain('FILE_CHANGED_SINCE_READ');
    expect(later.e3).toContain('Edited c.ts');
    // Both writes went to the disk through the log; only the clean buffer was told.
    expect(await readFile(path.join(ws, 'b.ts'), 'utf8')).toBe('let b = 2;\n');
    expect(await readFile(path.join(ws, 'c.ts'), 'utf8')).toBe('let c = 2;\n');
    expect(p.writes.map((w) => [w.path, w.content])).toContainEqual([path.join(ws, 'b.ts'), 'let b = 2;\n']);
    expect(p.writes.map((w) => w.path)).not.toContain(path.join(ws, 'c.ts'));
    expect(p.buffers.get(path.join(ws, 'c.ts'))).toBe('let c = 1;\n// typing\n');
    const log = (await readFile(path.join(ws, '.loupe/modifications.jsonl'), 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l) as { file: string; session_id: string });
    expect(log.filter((l) => l.session_id === sessionId).map((l) => l.file).sort()).toEqual(['b.ts', 'c.ts', 'ran.txt']);
    // The command ran in Loupe (its file is there) and the client's terminal was never asked for.
    expect(await readFile(path.join(ws, 'ran.txt'), 'utf8')).toBe('ran\n');
    expect(p.frames.some((f) => typeof f.method === 'string' && f.method.startsWith('terminal/'))).toBe(false);
    expect(p.problems).toEqual([]);
  });

  it('a client without fs is never asked for files', async () => {
    await writeFile(path.join(ws, 'a.ts'), 'const a = 1;\n');
    const p = await startAcp({ cwd: ws, env });
    const { sessionId } = await p.agent.request('session/new', { cwd: ws, mcpServers: [] });
    fx.llm.enqueue({ toolCalls: [call('r1', 'read_file', { path: 'a.ts' })] }, { toolCalls: [call('e1', 'edit_file', { path: 'a.ts', old_str: '1', new_str: '2' })] }, { content: 'ok' });
    expect((await p.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'edit' }] })).stopReason).toBe('end_turn');
    expect(await readFile(path.join(ws, 'a.ts'), 'utf8')).toBe('const a = 2;\n');
    expect(p.frames.some((f) => typeof f.method === 'string' && f.method.startsWith('fs/'))).toBe(false);
    expect(p.problems).toEqual([]);
  });

  it("sends a prompt's links and embedded files to the model, and refuses one the read rules deny", async () => {
    await writeFile(path.join(ws, 'a.ts'), 'const onDisk = 1;\n');
    await writeFile(path.join(ws, 'lines.txt'), 'one\ntwo\nthree\nfour\n');
    await writeFile(path.join(ws, '.env'), 'SECRET=1\n');
    const p = await startAcp({ cwd: ws, env });
    const { sessionId } = await p.agent.request('session/new', { cwd: ws, mcpServers: [] });
    fx.llm.enqueue({ content: 'Seen.' });
    const url = (rel: string) => `file://${path.join(ws, rel)}`;
    const res = await p.agent.request('session/prompt', {
      sessionId,
      prompt: [
        { type: 'text', text: 'Compare ' },
        { type: 'resource_link', name: 'a.ts', uri: url('a.ts') },
        { type: 'text', text: ' with the open buffer and lines 2-3' },
        { type: 'resource', resource: { uri: url('b.ts'), mimeType: 'text/x-typescript', text: 'const inEditor = 2;\n' } },
        { type: 'resource_link', name: 'lines', uri: `${url('lines.txt')}#L2-3` },
      ],
    });
    expect(res.stopReason).toBe('end_turn');
    const sent = userPrompt(fx.llm.completions.at(-1)!);
    expect(sent).toContain('Compare @a.ts with the open buffer and lines 2-3');
    expect(sent).toContain('<attached_file path="a.ts">');
    expect(sent).toContain('const onDisk = 1;');
    expect(sent).toMatch(/<attached_file path="b.ts" source="editor">[\s\S]*const inEditor = 2;/);
    expect(sent).toMatch(/<attached_file path="lines.txt" lines="2-3">[\s\S]*two\nthree\n/);
    expect(sent).not.toContain('four');

    const asks = fx.llm.completions.length;
    const denied = p.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'read this' }, { type: 'resource', resource: { uri: url('.env'), text: 'SECRET=1\n' } }] });
    await expect(denied).rejects.toMatchObject({ code: -32602, data: { code: 'PERMISSION_DENIED' } });
    const image = p.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'see' }, { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' }] });
    await expect(image).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('text-only') });
    expect(fx.llm.completions.length).toBe(asks);
    expect(p.problems).toEqual([]);
  });
});
