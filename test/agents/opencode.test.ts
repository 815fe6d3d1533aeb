// OpenCode (the real `opencode` of the npm package opencode-ai) as a session's runner, in Loupe's
// sandbox, pointed at the scripted model by its own opencode.json: what it changes is in the log
// attributed to acp:opencode, one undo restores it, its permission questions are cards in Loupe's
// queue, a deny reaches it, and Stop leaves none of its processes behind.
import { readFile, writeFile } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApprovalRequestView, ChatEvent, EventChannel, ModificationView } from '../../src/shared/contract';
import { Host } from '../../src/main/host/host';
import { processTable } from '../../src/main/services/process/processTable';
import { startScriptedLlm, type ScriptedLlm } from '../support/scriptedLlm';
import { git, tempDir, until, writeTree } from '../support/tmp';
import { writeUserSettings } from '../support/userSettings';
import { OPENCODE_BIN, OPENCODE_QUIET, call, chatEvents, hostOf, opencodeJson, opencodeModel } from '../support/hostedAgents';

let dir: string;
let ws: string;
let cleanup: () => Promise<void>;
let host: Host;
let llm: ScriptedLlm;
let events: { ch: EventChannel; p: unknown }[];

const SLOW = 240_000;

async function open(permission?: Record<string, string>, extra: Record<string, unknown> = {}): Promise<void> {
  await writeFile(path.join(ws, 'opencode.json'), opencodeJson(llm.baseURL, permission));
  writeUserSettings(path.join(dir, 'config'), { agents: { opencode: { command: OPENCODE_BIN, args: ['acp'], env: OPENCODE_QUIET, network: { hosts: [hostOf(llm.baseURL)] }, ...extra } } });
  host = new Host({ transport: 'websocket', configDir: path.join(dir, 'config') });
  events = [];
  host.onEvent((ch, p) => events.push({ ch, p }));
  await host.open(ws);
}

const approvals = (): Promise<ApprovalRequestView[]> => host.handle('approvals.list', undefined);
const finished = (sessionId: string, correlationId: string) => chatEvents(events, sessionId).find((e): e is Extract<ChatEvent, { type: 'request_finished' }> => e.type === 'request_finished' && e.correlation_id === correlationId);
const mods = async (correlationId: string): Promise<ModificationView[]> => (await host.handle('modlog.list', { correlation_id: correlationId })).modifications;

beforeEach(async () => {
  ({ dir, cleanup } = await tempDir('loupe-opencode-'));
  ws = path.join(dir, 'ws');
  llm = await startScriptedLlm();
  await writeTree(ws, { 'a.txt': 'alpha\n', 'b.txt': 'beta\n', '.gitignore': 'opencode.json\n' });
  git(ws, 'init', '-q');
  git(ws, 'add', '-A');
  git(ws, 'commit', '-q', '-m', 'start');
});

afterEach(async () => {
  await host?.dispose();
  await llm.close();
  await cleanup();
});

describe('OpenCode hosted in Loupe', () => {
  it(
    'two edits and a command that writes a third file are three modifications of acp:opencode; its edit questions are cards; one undo restores all',
    async () => {
      await open({ edit: 'ask', bash: 'allow' });
      llm.respondWith(
        opencodeModel(
          (root) => [
            call('read', { filePath: path.join(root, 'a.txt') }),
            call('edit', { filePath: path.join(root, 'a.txt'), oldString: 'alpha', newString: 'ALPHA' }),
            call('read', { filePath: path.join(root, 'b.txt') }),
            call('edit', { filePath: path.join(root, 'b.txt'), oldString: 'beta', newString: 'BETA' }),
            call('bash', { command: 'echo gamma > c.txt', description: 'Write c.txt' }),
            { content: 'Edited a.txt and b.txt, and wrote c.txt.' },
          ],
          ws,
        ),
      );
      const { session_id, correlation_id } = await host.handle('chat.send', { text: 'Uppercase a and b, then write c.', agent: 'opencode' });
      // Each edit asks; the card names the agent and binds to its tool call in the chat.
      for (const file of ['a.txt', 'b.txt']) {
        const card = await until(async () => (await approvals()).find((a) => a.summary.includes(file)), SLOW, 100);
        expect(card).toMatchObject({ kind: 'edit', tool: 'acp:opencode', session_id, correlation_id, call_id: expect.any(String) });
        expect(card.summary).toMatch(/^OpenCode: /);
        expect(card.diff).toMatch(file === 'a.txt' ? /\+ALPHA/ : /\+BETA/);
        expect(card.details).toMatch(/Allow once/);
        await host.handle('approvals.answer', { id: card.id, answer: 'once' });
      }
      const done = await until(() => finished(session_id, correlation_id), SLOW, 100);
      expect(done.status).toBe('done');
      expect(done.text).toContain('Edited a.txt and b.txt');
      expect(await readFile(path.join(ws, 'a.txt'), 'utf8')).toBe('ALPHA\n');
      expect(await readFile(path.join(ws, 'b.txt'), 'utf8')).toBe('BETA\n');
      expect(await readFile(path.join(ws, 'c.txt'), 'utf8')).toBe('gamma\n');

      // Three modifications under the request's correlation id, each attributed to the agent.
      const list = await mods(correlation_id);
      expect(list.map((m) => m.file).sort()).toEqual(['a.txt', 'b.txt', 'c.txt']);
      for (const m of list) expect(m).toMatchObject({ tool: 'acp:opencode', session_id, correlation_id, status: 'applied' });
      // The command's write is attributed to its tool call (its title is the reason), or, when its
      // first update reached Loupe after the command had run, to the turn's snapshot.
      expect(list.find((m) => m.file === 'c.txt')!.reason).toMatch(/echo gamma > c\.txt|OpenCode's turn/);
      // The chat showed its tool cards, the edits with their diffs.
      const cards = chatEvents(events, session_id).filter((e): e is Extract<ChatEvent, { type: 'tool_call_finished' }> => e.type === 'tool_call_finished');
      expect(cards.every((c) => c.tool === 'acp:opencode')).toBe(true);
      expect(cards.filter((c) => c.ok && typeof c.data?.git_diff === 'string').length).toBeGreaterThanOrEqual(2);
      // The command's card lists c.txt when its snapshot caught the write; else the turn's end says so.
      const cOnCard = cards.some((c) => (c.data?.changes as { files?: { file: string }[] } | undefined)?.files?.some((f) => f.file === 'c.txt'));
      const cNoticed = chatEvents(events, session_id).some((e) => e.type === 'notice' && e.text.includes('outside its tool calls') && e.text.includes('c.txt'));
      if (/echo gamma/.test(list.find((m) => m.file === 'c.txt')!.reason ?? '')) expect(cOnCard).toBe(true);
      else expect(cNoticed).toBe(true);
      const summary = (await host.handle('chat.sessions', undefined)).find((s) => s.id === session_id);
      expect(summary?.agent).toBe('opencode');

      // One undo of the request restores all three.
      const preview = await host.handle('chat.undoPreview', { session_id, correlation_id });
      expect(preview.files.map((f) => f.file).sort()).toEqual(['a.txt', 'b.txt', 'c.txt']);
      const undone = await host.handle('chat.undo', { session_id, correlation_id, digest: preview.digest, on_conflict: 'refuse' });
      expect(undone.rolled_back).toBe(3);
      expect(await readFile(path.join(ws, 'a.txt'), 'utf8')).toBe('alpha\n');
      expect(await readFile(path.join(ws, 'b.txt'), 'utf8')).toBe('beta\n');
      expect(existsSync(path.join(ws, 'c.txt'))).toBe(false);
    },
    SLOW * 2,
  );

  it(
    'a deny on its edit card reaches it: the edit does not happen and its tool call fails',
    async () => {
      await open({ edit: 'ask' });
      llm.respondWith(
        opencodeModel(
          (root) => [call('read', { filePath: path.join(root, 'a.txt') }), call('edit', { filePath: path.join(root, 'a.txt'), oldString: 'alpha', newString: 'DENIED' }), { content: 'The edit was rejected.' }],
          ws,
        ),
      );
      const { session_id, correlation_id } = await host.handle('chat.send', { text: 'Change a.', agent: 'opencode' });
      const card = await until(async () => (await approvals()).find((a) => a.tool === 'acp:opencode'), SLOW, 100);
      await host.handle('approvals.answer', { id: card.id, answer: 'deny', message: 'not this' });
      const done = await until(() => finished(session_id, correlation_id), SLOW, 100);
      expect(done.status).toBe('done');
      expect(await readFile(path.join(ws, 'a.txt'), 'utf8')).toBe('alpha\n');
      expect(await mods(correlation_id)).toEqual([]);
      const edit = chatEvents(events, session_id).find((e): e is Extract<ChatEvent, { type: 'tool_call_finished' }> => e.type === 'tool_call_finished' && e.call_id === card.call_id);
      expect(edit?.ok).toBe(false);
      // OpenCode heard the rejection: its tool call says so (and it ends the turn there, as it does for a person's "Reject").
      expect(`${edit?.output} ${edit?.error?.message}`).toMatch(/reject|denied|permission/i);
    },
    SLOW * 2,
  );

  it(
    "a person's allow rule answers its question without a card; a deny rule denies it",
    async () => {
      await open({ edit: 'ask' });
      const settings = JSON.parse(await readFile(path.join(dir, 'config', 'settings.json'), 'utf8')) as Record<string, unknown>;
      writeUserSettings(path.join(dir, 'config'), { ...settings, permissions: [{ kind: 'edit', pattern: 'a.txt', action: 'allow' }, { kind: 'edit', pattern: 'b.txt', action: 'deny' }] });
      llm.respondWith(
        opencodeModel(
          (root) => [
            call('read', { filePath: path.join(root, 'a.txt') }),
            call('edit', { filePath: path.join(root, 'a.txt'), oldString: 'alpha', newString: 'ALLOWED' }),
            call('read', { filePath: path.join(root, 'b.txt') }),
            call('edit', { filePath: path.join(root, 'b.txt'), oldString: 'beta', newString: 'DENIED' }),
          ],
          ws,
        ),
      );
      const seen: ApprovalRequestView[] = [];
      host.onEvent((ch, p) => ch === 'approvals.changed' && seen.push(...(p as { requests: ApprovalRequestView[] }).requests));
      const { session_id, correlation_id } = await host.handle('chat.send', { text: 'Change a and b.', agent: 'opencode' });
      await until(() => finished(session_id, correlation_id), SLOW, 100);
      expect(seen).toEqual([]);
      expect(await readFile(path.join(ws, 'a.txt'), 'utf8')).toBe('ALLOWED\n');
      expect(await readFile(path.join(ws, 'b.txt'), 'utf8')).toBe('beta\n');
    },
    SLOW * 2,
  );

  it(
    'Stop mid-turn: no process of the agent is left 3 s later',
    async () => {
      await open({ edit: 'allow', bash: 'allow' });
      llm.respondWith(opencodeModel(() => [call('bash', { command: 'sleep 300; echo late > late.txt', description: 'Wait a long time' })], ws));
      const { session_id, correlation_id } = await host.handle('chat.send', { text: 'Wait.', agent: 'opencode' });
      // The agent's command is running: its `sleep` is in the process table.
      const marker = (pid: number) => {
        try {
          return readFileSync(`/proc/${pid}/environ`, 'utf8').includes('LOUPE_COMMAND_ID=agent-opencode-');
        } catch {
          return false;
        }
      };
      const agentProcs = () => processTable().filter((p) => marker(p.pid));
      await until(() => chatEvents(events, session_id).some((e) => e.type === 'tool_call_started'), SLOW, 100);
      await until(() => agentProcs().some((p) => /sleep/.test(readFileSync(`/proc/${p.pid}/cmdline`, 'utf8'))), SLOW, 100);
      expect(agentProcs().length).toBeGreaterThan(0);
      await host.handle('chat.stop', { session_id });
      const stoppedAt = Date.now();
      const done = await until(() => finished(session_id, correlation_id), SLOW, 50);
      expect(done.status).toBe('aborted');
      // Whatever is still listed 3 s after Stop is a leak.
      await new Promise((r) => setTimeout(r, Math.max(0, 3000 - (Date.now() - stoppedAt))));
      expect(agentProcs()).toEqual([]);
      expect(existsSync(path.join(ws, 'late.txt'))).toBe(false);
    },
    SLOW * 2,
  );
});

describe('OpenCode in the sandbox', () => {
  it(
    'a write outside the workspace and a host its entry does not name are refused by the sandbox, and its tool cards say so',
    async () => {
      await open({ edit: 'allow', bash: 'allow' });
      const outside = path.join(dir, 'outside.txt');
      llm.respondWith(
        opencodeModel(
          () => [
            call('bash', { command: `echo escaped > ${outside}`, description: 'Write outside' }),
            call('bash', { command: 'curl -sS -f -m 20 http://not-named.example/secret', description: 'Fetch a page' }),
            { content: 'Both failed.' },
          ],
          ws,
        ),
      );
      const seen: ApprovalRequestView[] = [];
      host.onEvent((ch, p) => ch === 'approvals.changed' && seen.push(...(p as { requests: ApprovalRequestView[] }).requests));
      const { session_id, correlation_id } = await host.handle('chat.send', { text: 'Try to get out.', agent: 'opencode' });
      await until(() => finished(session_id, correlation_id), SLOW, 100);
      expect(existsSync(outside)).toBe(false);
      const cards = chatEvents(events, session_id).filter((e): e is Extract<ChatEvent, { type: 'tool_call_finished' }> => e.type === 'tool_call_finished');
      expect(cards).toHaveLength(2);
      const [write, fetch] = cards;
      expect(write).toMatchObject({ ok: false, error: { code: 'SANDBOX_BLOCKED' }, data: { sandboxed: true, blocked: expect.stringContaining(outside) } });
      expect(fetch).toMatchObject({ ok: false, error: { code: 'SANDBOX_BLOCKED' }, data: { blocked: expect.stringContaining('not-named.example') } });
      expect((fetch!.data!.network as { refused: { host: string; reason: string }[] }).refused[0]).toMatchObject({ host: 'not-named.example', reason: expect.stringMatching(/not listed in agents\.opencode\.network\.hosts, so the sandbox refused it/) });
      // Refused by the sandbox, not asked: an agent reaches out on its own, and no card is raised for it.
      expect(seen.filter((a) => a.kind === 'network')).toEqual([]);
      // Its model, which the entry names, was reached all along.
      expect(llm.completions.length).toBeGreaterThanOrEqual(3);
    },
    SLOW * 2,
  );
});
