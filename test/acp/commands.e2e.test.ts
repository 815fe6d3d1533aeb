// `loupe acp` and the folder's own slash commands: the custom commands and skills the composer's
// `/` picker lists are advertised in `available_commands_update` beside ACP's built-ins; typing
// one sends what the host expands, the same as in the app and `loupe run`; a repository command's
// shell line is a question in the editor before it runs. Needs `npm run build` first.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { RequestPermissionResponse, SessionUpdate } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { acpEnv, useAcpProcesses } from '../support/acpClient';
import { useCliFixture } from '../support/cli';
import { userPrompt } from '../support/scriptedLlm';
import { skillsWorld, type SkillsWorld } from '../support/skillsFixture';
import { until } from '../support/tmp';
import { writeUserSettings } from '../support/userSettings';

const fx = useCliFixture('loupe-acp-commands-');
let world: SkillsWorld | null = null;
// Registered before the processes' own: after-hooks run last-registered first, so each `loupe acp`
// has exited before its folder is removed (it may still be writing a snapshot there).
afterEach(async () => {
  await world?.cleanup();
  world = null;
});
const acp = useAcpProcesses();

async function session(): Promise<{ p: Awaited<ReturnType<typeof acp>>; id: string; w: SkillsWorld }> {
  world = await skillsWorld();
  // No OS sandbox: a command no rule allows asks.
  writeUserSettings(world.configDir, { sandbox: 'off' });
  const p = await acp({ cwd: world.root, env: { ...acpEnv(world.configDir, fx.llm.baseURL), HOME: world.home } });
  const s = await p.agent.request('session/new', { cwd: world.root, mcpServers: [] });
  return { p, id: s.sessionId, w: world };
}

const advertisedOf = async (p: Awaited<ReturnType<typeof acp>>, id: string) =>
  (await until(() => p.updates(id).find((u) => u.sessionUpdate === 'available_commands_update'))) as Extract<SessionUpdate, { sessionUpdate: 'available_commands_update' }>;
const saying = (updates: SessionUpdate[]) => updates.flatMap((u) => (u.sessionUpdate === 'agent_thought_chunk' && u.content.type === 'text' ? [u.content.text] : [])).join('');

describe('loupe acp offers the folder’s commands and skills', () => {
  it('advertises them beside its own, and a typed one reaches the model expanded', async () => {
    const { p, id } = await session();
    const { availableCommands } = await advertisedOf(p, id);
    const byName = new Map(availableCommands.map((c) => [c.name, c]));
    // ACP's own first (its /undo, not the host's), then the host's /skills and /compact, then the folder's.
    expect(availableCommands.slice(0, 2).map((c) => c.name)).toEqual(['execute-plan', 'undo']);
    expect(availableCommands.filter((c) => c.name === 'undo')).toHaveLength(1);
    expect([...byName.keys()]).toEqual(expect.arrayContaining(['execute-plan', 'undo', 'skills', 'compact', 'review-pr', 'mark', 'team/review', 'pdf-tools']));
    // Modes and new sessions are the editor's: no /plan or /clear here.
    expect(byName.has('plan') || byName.has('clear')).toBe(false);
    expect(byName.get('review-pr')).toMatchObject({ description: expect.stringContaining("the repository's command"), input: { hint: '[pr-number] [priority]' } });

    fx.llm.enqueue({ content: 'Reviewed.' });
    const res = await p.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text: '/review-pr 42 high' }] });
    expect(res.stopReason).toBe('end_turn');
    // Claude Code's numbering: $ARGUMENTS[0] and $1 are the first and second words.
    expect(userPrompt(fx.llm.requests.at(-1)!)).toContain('Review PR #42 with priority high; everything typed: 42 high');
    expect(saying(p.updates(id))).toContain('/review-pr (the repository\'s command) became:\nReview PR #42');
    expect(p.problems).toEqual([]);
  });

  it("a repository command's shell line is asked in the editor; refused, nothing runs and nothing is sent", async () => {
    const { p, id, w } = await session();
    await advertisedOf(p, id);
    p.answer = (): RequestPermissionResponse => ({ outcome: { outcome: 'selected', optionId: 'reject_once' } });
    const before = fx.llm.requests.length;
    await expect(p.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text: '/mark' }] })).rejects.toMatchObject({ message: expect.stringMatching(/\/mark was not sent/) });
    expect(p.permissions).toHaveLength(1);
    expect(JSON.stringify(p.permissions[0].toolCall)).toContain('touch MARK && echo marked');
    expect(existsSync(path.join(w.root, 'MARK'))).toBe(false);
    expect(fx.llm.requests.length).toBe(before);

    p.answer = (): RequestPermissionResponse => ({ outcome: { outcome: 'selected', optionId: 'allow_once' } });
    fx.llm.enqueue({ content: 'done' });
    const res = await p.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text: '/mark' }] });
    expect(res.stopReason).toBe('end_turn');
    expect(existsSync(path.join(w.root, 'MARK'))).toBe(true);
    expect(userPrompt(fx.llm.requests.at(-1)!)).toContain('Before you start, the marker: marked');
  });
});
