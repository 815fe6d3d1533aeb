// Skills as the agent uses them, in process: the real composition root over a copy of the skills
// test repository and a person's home, the real tools and gate, the scripted model. A skill grants
// nothing by itself: its allowed-tools hold for the request that loaded it, the person's as
// written, a repository's only in a trusted folder and once approved on a `skill` card.
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import { LlmClient } from '../../src/main/agent/llm/client';
import { Agent } from '../../src/main/agent/loop/agentLoop';
import type { AgentEvent } from '../../src/main/agent/loop/events';
import { workspacePromptSource } from '../../src/main/agent/prompts/workspacePrompt';
import { createToolContext } from '../../src/main/agent/tools/context';
import { createToolRegistry } from '../../src/main/agent/tools/registry';
import { nullLogger } from '../../src/main/services/log/logger';
import type { ApprovalAnswer, ApprovalRequest } from '../../src/main/services/permissions/approvalQueue';
import { trustCurrentConfig } from '../../src/main/services/permissions/trust';
import { composeWorkspace, openUserSettings, type WorkspaceServices } from '../../src/main/workspace/compose';
import { startScriptedLlm, type ScriptedLlm } from '../support/scriptedLlm';
import { skillsWorld, type SkillsWorld } from '../support/skillsFixture';
import { writeUserSettings } from '../support/userSettings';
import { call, toolMessages } from './agentHarness';

let llm: ScriptedLlm;
beforeAll(async () => {
  llm = await startScriptedLlm();
});
afterAll(async () => {
  await llm.close();
});

interface Setup {
  world: SkillsWorld;
  services: WorkspaceServices;
  asked: ApprovalRequest[];
  agent: () => Agent & { seen: AgentEvent[] };
}

let open: Setup[] = [];
afterEach(async () => {
  for (const s of open) {
    await s.services.dispose();
    await s.world.cleanup();
  }
  open = [];
  llm.requests.length = 0;
});

/** `answer`: how the person answers each card (by kind). Commands run outside any sandbox here, so every question is asked. */
async function setup(answer: (r: ApprovalRequest) => ApprovalAnswer, world?: SkillsWorld, prompt = false): Promise<Setup> {
  const w = world ?? (await skillsWorld());
  if (!world) writeUserSettings(w.configDir, { sandbox: 'off' });
  const asked: ApprovalRequest[] = [];
  const services = composeWorkspace({
    root: w.root,
    user: openUserSettings(w.configDir),
    asker: {
      kind: 'responder',
      respond: async (r) => {
        asked.push(r);
        return answer(r);
      },
    },
    logger: nullLogger,
    lsp: false,
    home: w.home,
  });
  const s: Setup = {
    world: w,
    services,
    asked,
    agent: () => {
      const registry = createToolRegistry();
      const { signal: _s, ...toolContext } = createToolContext(services, { corrector: null });
      const agent = new Agent({ llm: new LlmClient({ baseURL: llm.baseURL, apiKey: 'k', model: 'scripted' }), registry, toolContext, ...(prompt ? { prompt: workspacePromptSource(services, registry) } : { systemPrompt: 'You are a test agent.' }) }) as Agent & { seen: AgentEvent[] };
      agent.seen = [];
      agent.events.on((e) => agent.seen.push(e));
      return agent;
    },
  };
  open.push(s);
  return s;
}

const deny = (): ApprovalAnswer => ({ answer: 'deny', message: 'no' });
const finished = (a: { seen: AgentEvent[] }, id: string) => a.seen.find((e) => e.type === 'tool_call_finished' && e.call_id === id) as Extract<AgentEvent, { type: 'tool_call_finished' }>;

describe('the skill tool', () => {
  it('loads a repository skill: its body, its folder and files, and reads them without asking', async () => {
    const s = await setup(deny);
    llm.enqueue({ toolCalls: [call('k1', 'skill', { name: 'api-guide' })] }, { toolCalls: [call('r1', 'read_file', { path: '.claude/skills/api-guide/references/endpoints.md' })] }, { content: 'done' });
    const agent = s.agent();
    await agent.run('use the widgets api');
    const loaded = finished(agent, 'k1');
    expect(loaded.ok).toBe(true);
    expect(loaded.output).toContain('MARK-API-GUIDE-BODY');
    expect(loaded.output).toContain('Skill folder: .claude/skills/api-guide.');
    expect(loaded.data).toMatchObject({ name: 'api-guide', scope: 'repository', dir: '.claude/skills/api-guide', files: ['SKILL.md', 'LICENSE.txt', 'python/client.md', 'references/endpoints.md', 'shared/errors.md'], allowed_tools: null });
    expect(finished(agent, 'r1').ok).toBe(true);
    expect(s.asked).toEqual([]);
  });

  it("reads the person's own skill folder outside the workspace without asking, and nothing else out there", async () => {
    const s = await setup(deny);
    const template = path.join(s.world.home, '.claude/skills/my-notes/templates/notes.md');
    const elsewhere = path.join(s.world.home, '.codex/prompts/explain.md');
    llm.enqueue({ toolCalls: [call('k1', 'skill', { name: 'my-notes' })] }, { toolCalls: [call('r1', 'read_file', { path: template }), call('r2', 'read_file', { path: elsewhere })] }, { content: 'done' });
    const agent = s.agent();
    await agent.run('notes please');
    expect(finished(agent, 'k1').output).toContain(`Skill folder: ${s.world.home}/.claude/skills/my-notes (outside the workspace`);
    expect(finished(agent, 'r1')).toMatchObject({ ok: true });
    expect(finished(agent, 'r1').output).toContain('MARK-MY-NOTES-TEMPLATE');
    expect(finished(agent, 'r2')).toMatchObject({ ok: false, error: { code: 'PATH_OUTSIDE_WORKSPACE' } });
    expect(s.asked.filter((r) => r.kind === 'read' || r.kind === 'external_directory')).toEqual([]);
  });

  it('names the skills there are when asked for one that is not', async () => {
    const s = await setup(deny);
    llm.enqueue({ toolCalls: [call('k1', 'skill', { name: 'nope' })] }, { content: 'done' });
    const agent = s.agent();
    await agent.run('x');
    expect(finished(agent, 'k1')).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    expect(finished(agent, 'k1').output).toContain('No skill named "nope". The skills here: all-powerful, api-guide, colon-trap');
  });
});

describe('a skill grants nothing by itself', () => {
  it("the person's own allowed-tools hold while it is in use: that request only", async () => {
    const s = await setup(deny);
    llm.enqueue({ toolCalls: [call('k1', 'skill', { name: 'my-notes' })] }, { toolCalls: [call('b1', 'bash', { command: 'echo from-the-skill', description: 'echo' })] }, { content: 'done' });
    const agent = s.agent();
    await agent.run('notes');
    expect(finished(agent, 'k1').data).toMatchObject({ allowed_tools: { entries: ['Bash(echo:*)'], applied: true } });
    expect(finished(agent, 'b1')).toMatchObject({ ok: true });
    expect(finished(agent, 'b1').output).toContain('from-the-skill');
    expect(s.asked).toEqual([]);
    // The next request starts with no grant: the same command asks (and is denied).
    llm.enqueue({ toolCalls: [call('b2', 'bash', { command: 'echo again', description: 'echo' })] }, { content: 'done' });
    await agent.run('again');
    expect(finished(agent, 'b2')).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED' } });
    expect(s.asked.map((r) => r.kind)).toEqual(['bash']);
  });

  it("a repository skill's Bash(*) is ignored in an untrusted folder: no card, the command asks as always", async () => {
    const s = await setup(deny);
    llm.enqueue({ toolCalls: [call('k1', 'skill', { name: 'all-powerful' })] }, { toolCalls: [call('b1', 'bash', { command: 'touch SKILL_MARK', description: 'mark' })] }, { content: 'done' });
    const agent = s.agent();
    await agent.run('set up');
    expect(finished(agent, 'k1').data).toMatchObject({ allowed_tools: { entries: ['Bash(*)', 'Edit', 'WebFetch'], applied: false, why: expect.stringMatching(/not trusted/) } });
    expect(finished(agent, 'b1')).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED' } });
    expect(s.asked.map((r) => r.kind)).toEqual(['bash']);
    expect(existsSync(path.join(s.world.root, 'SKILL_MARK'))).toBe(false);
  });

  it('trusted but not approved: the skill card is declined and the command still asks', async () => {
    const world = await skillsWorld();
    writeUserSettings(world.configDir, { sandbox: 'off' });
    await trustFolder(world);
    const s = await setup(deny, world);
    llm.enqueue({ toolCalls: [call('k1', 'skill', { name: 'all-powerful' })] }, { toolCalls: [call('b1', 'bash', { command: 'touch SKILL_MARK', description: 'mark' })] }, { content: 'done' });
    const agent = s.agent();
    await agent.run('set up');
    expect(s.asked.map((r) => r.kind)).toEqual(['skill', 'bash']);
    expect(s.asked[0]).toMatchObject({ tool: 'skill "all-powerful" (.claude/skills/all-powerful)', call_id: 'k1', summary: expect.stringContaining('Bash(*), Edit, WebFetch') });
    expect(s.asked[0].details).toContain('as rules: allow bash "*", edit "**", webfetch "*"');
    expect(finished(agent, 'k1').data).toMatchObject({ allowed_tools: { applied: false, why: expect.stringMatching(/did not approve/) } });
    expect(existsSync(path.join(s.world.root, 'SKILL_MARK'))).toBe(false);
  });

  it('trusted and approved on its card: the command runs without its own card, in that request only; "always" is kept per list', async () => {
    const world = await skillsWorld();
    writeUserSettings(world.configDir, { sandbox: 'off' });
    await trustFolder(world);
    const s = await setup((r) => (r.kind === 'skill' ? { answer: 'always' } : deny()), world);
    llm.enqueue({ toolCalls: [call('k1', 'skill', { name: 'all-powerful' })] }, { toolCalls: [call('b1', 'bash', { command: 'touch SKILL_MARK', description: 'mark' })] }, { content: 'done' });
    const agent = s.agent();
    await agent.run('set up');
    expect(s.asked.map((r) => r.kind)).toEqual(['skill']);
    expect(finished(agent, 'b1')).toMatchObject({ ok: true });
    expect(existsSync(path.join(s.world.root, 'SKILL_MARK'))).toBe(true);
    // The next request: no grant until the skill is loaded again.
    llm.enqueue({ toolCalls: [call('b2', 'bash', { command: 'touch SECOND', description: 'mark' })] }, { content: 'done' });
    await agent.run('again');
    expect(finished(agent, 'b2')).toMatchObject({ ok: false });
    // Loaded again: the approval is remembered for this exact list, so no card.
    llm.enqueue({ toolCalls: [call('k3', 'skill', { name: 'all-powerful' })] }, { toolCalls: [call('b3', 'bash', { command: 'touch THIRD', description: 'mark' })] }, { content: 'done' });
    await agent.run('third');
    expect(s.asked.map((r) => r.kind)).toEqual(['skill', 'bash']);
    expect(existsSync(path.join(s.world.root, 'THIRD'))).toBe(true);
    // The list changes: asked again.
    await writeFile(path.join(world.root, '.claude/skills/all-powerful/SKILL.md'), '---\nname: all-powerful\ndescription: changed\nallowed-tools: Bash(*) Read\n---\nbody\n');
    llm.enqueue({ toolCalls: [call('k4', 'skill', { name: 'all-powerful' })] }, { content: 'done' });
    await agent.run('fourth');
    expect(s.asked.map((r) => r.kind)).toEqual(['skill', 'bash', 'skill']);
  });
});

describe("Claude Code's invocation flags", () => {
  it('disable-model-invocation: not listed for the agent, not loaded by it, still typed; user-invocable: false: not offered to type', async () => {
    const world = await skillsWorld();
    writeUserSettings(world.configDir, { sandbox: 'off' });
    const { mkdir } = await import('node:fs/promises');
    await mkdir(path.join(world.root, '.claude/skills/deploy-now'), { recursive: true });
    await writeFile(path.join(world.root, '.claude/skills/deploy-now/SKILL.md'), '---\nname: deploy-now\ndescription: Ships to production.\ndisable-model-invocation: true\n---\nDEPLOY-BODY\n');
    await mkdir(path.join(world.root, '.claude/skills/background-only'), { recursive: true });
    await writeFile(path.join(world.root, '.claude/skills/background-only/SKILL.md'), '---\nname: background-only\ndescription: Context the agent loads itself.\nuser-invocable: false\n---\nBODY\n');
    const s = await setup(deny, world, true);
    llm.enqueue({ toolCalls: [call('k1', 'skill', { name: 'deploy-now' }), call('k2', 'skill', { name: 'background-only' })] }, { content: 'done' });
    const agent = s.agent();
    await agent.run('ship it');
    const system = String(llm.completions[0].body.messages?.[0]?.content);
    expect(system).not.toContain('deploy-now');
    expect(system).toContain('- background-only: Context the agent loads itself.');
    expect(finished(agent, 'k1')).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', message: expect.stringContaining('is for the person to call (/deploy-now)') } });
    expect(finished(agent, 'k2')).toMatchObject({ ok: true });
    const { listSlashCommands } = await import('../../src/main/services/commands/list');
    const names = (await listSlashCommands(s.services)).commands.map((c) => c.name);
    expect(names).toContain('deploy-now');
    expect(names).not.toContain('background-only');
  });
});

describe('what the agent is told', () => {
  it('lists each skill with its description (the long one cut), the person’s marked, and no body', async () => {
    const s = await setup(deny, undefined, true);
    llm.enqueue({ content: 'hi' });
    await s.agent().run('hello');
    const system = String(llm.completions[0].body.messages?.[0]?.content);
    expect(system).toContain('# Skills');
    expect(system).toContain('call `skill` with its name before you start');
    expect(system).toContain('- colon-trap: Use when: the user asks for a changelog entry; also when: they mention release notes');
    expect(system).toContain('- shared-name (yours): The person\'s own version, which a repository cannot replace.');
    expect(system).not.toContain('The repository\'s version of a skill the person also has.');
    expect(system).toMatch(/- api-guide: Reference for the Widgets HTTP API[^\n]*\n/);
    expect(system).not.toContain('MARK-API-GUIDE-BODY');
    expect(toolMessages(llm.completions[0].body)).toEqual({});
  });
});

async function trustFolder(w: SkillsWorld): Promise<void> {
  // A folder is trusted with its .loupe/config.json: one that grants nothing but exists to be trusted.
  const { mkdir } = await import('node:fs/promises');
  await mkdir(path.join(w.root, '.loupe'), { recursive: true });
  await writeFile(path.join(w.root, '.loupe', 'config.json'), JSON.stringify({ edits: { mode: 'review' } }));
  await trustCurrentConfig(w.root, openUserSettings(w.configDir));
}
