// Two subagents editing one file at once never lose an update: both read it, both change it at
// the same moment; the per-file lock lets one write, and the other is refused with the conflict
// (the file changed since it read it), reads again and applies its change to the file as the
// first left it. Checked for each tool that writes a file.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatEvent } from '../../src/shared/contract';
import type { RecordedRequest, ScriptedReply } from '../support/scriptedLlm';
import { call, subagentWorld, type SubagentWorld } from './harness';

let world: SubagentWorld | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

const FILE = 'x.txt';
const ORIGINAL = 'line one\nline two\nline three\n';

/** The file as the model last read it, from read_file's numbered lines. */
function lastRead(req: RecordedRequest): string {
  const reads = (req.body.messages ?? []).filter((m) => m.role === 'tool' && /^\s+1→/.test(String(m.content)));
  const text = String(reads.at(-1)?.content ?? '');
  return text
    .split('\n')
    .map((l) => /^\s*\d+→(.*)$/.exec(l)?.[1])
    .filter((l): l is string => l !== undefined)
    .map((l) => `${l}\n`)
    .join('');
}

type Tool = 'edit_file' | 'write_file' | 'code_modify';

/** The call that changes line `line` (1 or 3) to `to`, as each tool takes it. */
function change(tool: Tool, id: string, line: 1 | 3, from: string, to: string, req: RecordedRequest) {
  if (tool === 'edit_file') return call(id, tool, { path: FILE, old_str: from, new_str: to });
  if (tool === 'code_modify') return call(id, tool, { file_path: FILE, operation: 'replace', line_range: [line, line], new_content: to });
  return call(id, tool, { path: FILE, content: lastRead(req).replace(from, to) });
}

function editor(tool: Tool, n: 1 | 2, together: (r: ScriptedReply) => Promise<ScriptedReply>) {
  const [line, from, to] = n === 1 ? ([1, 'line one', 'ONE'] as const) : ([3, 'line three', 'THREE'] as const);
  return {
    when: `EDITOR-${n}:`,
    replies: (turn: number, req: RecordedRequest): ScriptedReply | Promise<ScriptedReply> => {
      const tools = (req.body.messages ?? []).filter((m) => m.role === 'tool').map((m) => String(m.content));
      const last = tools.at(-1) ?? '';
      if (turn === 0) return { toolCalls: [call(`r${n}-0`, 'read_file', { path: FILE })] };
      // Both have read the file before either changes it.
      if (turn === 1) return together({ toolCalls: [change(tool, `c${n}-1`, line, from, to, req)] });
      if (last.includes('FILE_CHANGED_SINCE_READ')) return { toolCalls: [call(`r${n}-${turn}`, 'read_file', { path: FILE })] };
      if (/^\s+1→/.test(last)) return { toolCalls: [change(tool, `c${n}-${turn}`, line, from, to, req)] };
      return { content: `EDITOR-${n} done` };
    },
  };
}

function barrier(n: number) {
  let arrived = 0;
  let open!: () => void;
  const all = new Promise<void>((r) => (open = r));
  return async (reply: ScriptedReply) => {
    if (++arrived >= n) open();
    await all;
    return reply;
  };
}

describe('two subagents editing one file in parallel', () => {
  it.each<Tool>(['edit_file', 'write_file', 'code_modify'])('with %s: both changes land, the second only after it was refused with the conflict and read again', async (tool) => {
    const together = barrier(2);
    world = await subagentWorld(
      [
        {
          when: 'Two editors',
          replies: [{ toolCalls: [call('a1', 'agent', { description: 'Edit line one', prompt: 'EDITOR-1: change line one' }), call('a2', 'agent', { description: 'Edit line three', prompt: 'EDITOR-2: change line three' })] }, { content: 'both done' }],
        },
        editor(tool, 1, together),
        editor(tool, 2, together),
      ],
      { files: { [FILE]: ORIGINAL } },
    );
    const { session_id, correlation_id } = await world.host.handle('chat.send', { text: 'Two editors' });
    expect((await world.finished(correlation_id)).status).toBe('done');
    expect(await readFile(path.join(world.root, FILE), 'utf8')).toBe('ONE\nline two\nTHREE\n');
    const events = world.chat(session_id);
    const writes = events.filter((e): e is Extract<ChatEvent, { type: 'tool_call_finished' }> => e.type === 'tool_call_finished' && e.tool === tool);
    // Three attempts: one wrote at once, one was refused with the conflict and then wrote.
    expect(writes.map((e) => (e.ok ? 'ok' : e.error?.code)).sort()).toEqual(['FILE_CHANGED_SINCE_READ', 'ok', 'ok']);
    const mods = (await world.host.handle('modlog.list', {})).modifications;
    expect(mods).toHaveLength(2);
    expect(new Set(mods.map((m) => m.agent_id)).size).toBe(2);
    expect(mods.every((m) => m.correlation_id === correlation_id && m.session_id === session_id)).toBe(true);
  }, 60_000);
});
