// Sessions side by side through the Host: two worktree sessions run their own loops at once, their
// questions wait in the one queue naming their session, the sidebar's rows follow, and the work
// comes back to the main folder (or is refused over a conflict) and is discarded only as shown.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventChannel, HostEvents, WorktreeSessionView } from '../../shared/contract';
import { startScriptedLlm, userPrompt, type RecordedRequest, type ScriptedLlm, type ScriptedReply } from '../../../test/support/scriptedLlm';
import { committedRepo, tempDir, until } from '../../../test/support/tmp';
import { writeUserSettings } from '../../../test/support/userSettings';
import { Host } from './host';

let dir: string;
let cleanup: () => Promise<void>;
let host: Host;
let llm: ScriptedLlm;
let repo: string;
let events: { ch: EventChannel; p: unknown }[];

/** "write WORD": one command that overwrites a.txt with WORD (it asks: the sandbox is off), then "done". */
function script(req: RecordedRequest): ScriptedReply {
  const last = req.body.messages?.at(-1);
  if (last?.role === 'tool') return { content: 'done' };
  const word = userPrompt(req).replace(/^write /, '');
  return { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: `printf '${word}\\n' > a.txt`, description: 'write a.txt' }) }] };
}

const rows = () => host.handle('worktree.sessions', undefined);
const row = async (name: string): Promise<WorktreeSessionView | undefined> => (await rows()).find((r) => r.worktree === name);

/** A new session in worktree `name` sends `text`; its one question is allowed; it finishes. */
async function runAndAllow(name: string, text: string): Promise<WorktreeSessionView> {
  const s = await host.handle('worktree.newSession', { name });
  await host.handle('chat.send', { session_id: s.session_id, text });
  const [q] = await until(async () => {
    const list = await host.handle('approvals.list', undefined);
    return list.length ? list : null;
  });
  await host.handle('approvals.answer', { id: q.id, answer: 'once' });
  await until(async () => (await row(name))?.status === 'done');
  return s;
}

beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  llm = await startScriptedLlm(script);
  writeUserSettings(path.join(dir, 'config'), { sandbox: 'off', llm: { base_url: llm.baseURL, model: 'scripted' } });
  host = new Host({ transport: 'websocket', configDir: path.join(dir, 'config') });
  events = [];
  host.onEvent((ch, p) => events.push({ ch, p }));
  repo = await committedRepo(path.join(dir, 'repo'), { 'a.txt': 'hello\n', 'b.txt': 'keep\n' });
  await host.open(repo);
});
afterEach(async () => {
  await host.dispose();
  await llm.close();
  await cleanup();
});

describe('worktree sessions in the host', () => {
  it('lists none for a repository without worktrees, and makes no folder beside it by listing', async () => {
    expect(await rows()).toEqual([]);
    expect(existsSync(`${repo}.loupe-worktrees`)).toBe(false);
  });

  it('runs two sessions at once, each asking in the one queue under its own name, then applies one and refuses the other', async () => {
    const a = await host.handle('worktree.newSession', { name: 'fix-a' });
    const b = await host.handle('worktree.newSession', { name: 'fix-b' });
    expect(a).toMatchObject({ worktree: 'fix-a', branch: 'loupe/fix-a', status: 'new', missing: false, files: 0 });
    expect(b.session_id).not.toBe(a.session_id);
    expect(a.path).toBe(path.join(`${repo}.loupe-worktrees`, 'fix-a'));

    await host.handle('chat.send', { session_id: a.session_id, text: 'write from A' });
    await host.handle('chat.send', { session_id: b.session_id, text: 'write from B' });
    // Both wait at once, each card naming its session and worktree.
    const asked = await until(async () => {
      const list = await host.handle('approvals.list', undefined);
      return list.length === 2 ? list : null;
    });
    const bySession = new Map(asked.map((r) => [r.session_id, r]));
    expect(bySession.get(a.session_id)).toMatchObject({ kind: 'bash', worktree: 'fix-a', session_title: 'write from A' });
    expect(bySession.get(b.session_id)).toMatchObject({ kind: 'bash', worktree: 'fix-b', session_title: 'write from B' });
    await until(async () => (await rows()).every((r) => r.status === 'waiting'));
    // The sidebar heard it as an event too.
    await until(() => events.some((e) => e.ch === 'worktree.sessions' && (e.p as HostEvents['worktree.sessions']).sessions.filter((s) => s.status === 'waiting').length === 2));

    for (const r of asked) await host.handle('approvals.answer', { id: r.id, answer: 'once' });
    await until(async () => (await rows()).every((r) => r.status === 'done' && r.files === 1));
    expect(await row('fix-a')).toMatchObject({ title: 'write from A', files: 1, added: 1, removed: 1 });
    // Each worktree has its own edit; the main folder is untouched.
    expect(await readFile(path.join(a.path, 'a.txt'), 'utf8')).toBe('from A\n');
    expect(await readFile(path.join(b.path, 'a.txt'), 'utf8')).toBe('from B\n');
    expect(await readFile(path.join(repo, 'a.txt'), 'utf8')).toBe('hello\n');

    // Review: the change against the base, file by file.
    const changes = await host.handle('worktree.changes', { name: 'fix-a' });
    expect(changes.files).toEqual([{ file: 'a.txt', operation: 'overwrite', merged: false, added: 1, removed: 1 }]);
    expect(await host.handle('worktree.fileDiff', { name: 'fix-a', path: 'a.txt' })).toMatchObject({ file: 'a.txt', before: 'hello\n', after: 'from A\n', label: expect.stringContaining('worktree fix-a') });
    await expect(host.handle('worktree.fileDiff', { name: 'fix-a', path: '../repo/b.txt' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });

    // Apply A: a group of the main folder's log.
    const applied = await host.handle('worktree.apply', { name: 'fix-a' });
    expect(applied.files).toEqual(['a.txt']);
    expect(await readFile(path.join(repo, 'a.txt'), 'utf8')).toBe('from A\n');
    const log = await host.handle('modlog.list', {});
    expect(log.modifications.filter((m) => m.group_id === applied.group_id)).toHaveLength(1);
    expect(log.modifications[0]).toMatchObject({ group_kind: 'worktree', file: 'a.txt' });

    // Apply B: the same lines changed in main: refused, each conflict named, nothing written.
    const refused = await host.handle('worktree.apply', { name: 'fix-b' }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'APPLY_CONFLICT', details: { conflicts: [{ file: 'a.txt', why: expect.any(String) }] } });
    expect(await readFile(path.join(repo, 'a.txt'), 'utf8')).toBe('from A\n');

    // The rows count what each worktree changed against the base, a conflicting file's lines
    // included, and follow the apply: A's one file is in the main folder now.
    await until(async () => (await row('fix-a'))?.applied_files === 1);
    expect(await row('fix-a')).toMatchObject({ files: 1, added: 1, removed: 1, applied_files: 1 });
    expect(await row('fix-b')).toMatchObject({ files: 1, added: 1, removed: 1, applied_files: 0 });
  });

  it('discards only what was shown: a stale digest keeps the worktree, the shown one removes it and its branch', async () => {
    const a = await runAndAllow('gone', 'write lost work');
    const report = await host.handle('worktree.discardReport', { name: 'gone' });
    expect(report.uncommitted).toEqual(['M  a.txt']);
    await expect(host.handle('worktree.discard', { name: 'gone', digest: 'not-it' })).rejects.toMatchObject({ code: 'WORKTREE_CHANGED' });
    expect(existsSync(a.path)).toBe(true);
    await host.handle('worktree.discard', { name: 'gone', digest: report.digest });
    expect(existsSync(a.path)).toBe(false);
    expect(await rows()).toEqual([]);
  });

  it('resumes a worktree session after the host restarts: the same session, its conversation kept', async () => {
    const a = await runAndAllow('keep', 'write kept');
    await host.dispose();
    host = new Host({ transport: 'websocket', configDir: path.join(dir, 'config') });
    await host.open(repo);
    const again = await until(() => row('keep'));
    expect(again).toMatchObject({ session_id: a.session_id, title: 'write kept', files: 0 });
    expect((await host.handle('chat.session', { id: a.session_id })).entries.some((e) => e.type === 'user_message')).toBe(true);
    await until(async () => (await row('keep'))?.files === 1);
  });
});
