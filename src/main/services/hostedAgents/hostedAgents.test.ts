// Which agents a folder offers, and a repository's agent as the repository's program: offered only
// once the folder is trusted, run only after a card of kind `agent` showing its exact command line,
// its approval kept per folder under the digest of its configuration (a change asks again).
import { mkdir, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/support/tmp';
import { testTrust, type TestTrust } from '../../../../test/support/trust';
import { writeUserSettings } from '../../../../test/support/userSettings';
import { composeWorkspace, type WorkspaceServices } from '../../workspace/compose';
import { nullLogger } from '../log/logger';
import type { ApprovalRequest } from '../permissions/approvalQueue';
import { UserSettings } from '../settings/userSettings';

let dir: string;
let cleanup: () => Promise<void>;
let trust: TestTrust;
let services: WorkspaceServices;
let asked: ApprovalRequest[];
let answer: 'once' | 'always' | 'deny';

const ENTRY = { command: process.execPath, args: ['--version'], network: { hosts: ['api.example.com'] } };

async function open(config: unknown): Promise<void> {
  await mkdir(path.join(dir, 'ws', '.loupe'), { recursive: true });
  await writeFile(path.join(dir, 'ws', '.loupe', 'config.json'), JSON.stringify(config));
  services = composeWorkspace({
    root: path.join(dir, 'ws'),
    user: trust.store,
    asker: {
      kind: 'responder',
      respond: async (r) => {
        asked.push(r);
        return answer === 'deny' ? { answer: 'deny' } : { answer };
      },
    },
    logger: nullLogger,
    lsp: false,
  });
}

beforeEach(async () => {
  ({ dir, cleanup } = await tempDir('loupe-agents-'));
  trust = testTrust();
  asked = [];
  answer = 'always';
});
afterEach(async () => {
  await services?.dispose();
  trust.cleanup();
  await cleanup();
});

describe("a repository's agent", () => {
  it('untrusted: not offered, nobody asked, the trust prompt lists it', async () => {
    await open({ agents: { helper: ENTRY } });
    const list = await services.hostedAgents.list();
    expect(list.find((a) => a.name === 'helper')).toMatchObject({ source: 'project', status: 'pending', detail: expect.stringMatching(/trust this folder/) });
    await expect(services.hostedAgents.check('helper')).rejects.toMatchObject({ code: 'AGENT_UNAVAILABLE', message: expect.stringMatching(/not trusted|trust the folder/i) });
    expect(asked).toEqual([]);
    expect((await services.project.load()).ignored?.agents?.map((a) => a.name)).toEqual(['helper']);
  });

  it('trusted: a card of kind agent with its exact command line; "always" is kept per folder until its configuration changes', async () => {
    await open({ agents: { helper: ENTRY } });
    await trust.trust(path.join(dir, 'ws'));
    expect((await services.hostedAgents.list()).find((a) => a.name === 'helper')).toMatchObject({ status: 'pending' });
    const decl = await services.hostedAgents.check('helper');
    expect(decl.entry.command).toBe(process.execPath);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ kind: 'agent', tool: 'acp:helper', summary: `run the agent "helper": ${process.execPath} --version` });
    expect(asked[0]!.details).toMatch(/network: api\.example\.com/);
    // Kept in the person's settings, never in the workspace.
    const settings = JSON.parse(readFileSync(trust.store.file, 'utf8')) as { agents_approved: Record<string, Record<string, string>> };
    expect(Object.keys(settings.agents_approved[path.join(dir, 'ws')] ?? {})).toEqual(['helper']);
    await services.hostedAgents.check('helper');
    expect(asked).toHaveLength(1);
    expect((await services.hostedAgents.list()).find((a) => a.name === 'helper')?.status).toBe('ready');

    // Its configuration changes (and the folder is trusted again with it): asked again.
    await writeFile(path.join(dir, 'ws', '.loupe', 'config.json'), JSON.stringify({ agents: { helper: { ...ENTRY, args: ['--eval', 'evil()'] } } }));
    await trust.trust(path.join(dir, 'ws'));
    answer = 'deny';
    await expect(services.hostedAgents.check('helper')).rejects.toMatchObject({ code: 'AGENT_UNAVAILABLE', message: expect.stringMatching(/declined/) });
    expect(asked).toHaveLength(2);
    expect(asked[1]!.summary).toContain("--eval 'evil()'");
    // A refusal holds while Loupe runs: not asked a third time.
    await expect(services.hostedAgents.check('helper')).rejects.toMatchObject({ code: 'AGENT_UNAVAILABLE' });
    expect(asked).toHaveLength(2);
  });

  it("a name the person's settings use stays the person's", async () => {
    writeUserSettings(trust.configDir, { agents: { helper: { command: process.execPath, args: ['-e', '0'] } } });
    await open({ agents: { helper: ENTRY } });
    await trust.trust(path.join(dir, 'ws'));
    const decl = await services.hostedAgents.check('helper');
    expect(decl).toMatchObject({ source: 'user', entry: { args: ['-e', '0'] } });
    expect(asked).toEqual([]);
  });
});

describe("the person's agents and the ready entries", () => {
  it('a ready entry not enabled is offered in the settings only; enabling writes it whole, with the folder named', async () => {
    await open({});
    const ready = await services.hostedAgents.list();
    expect(ready.map((a) => a.name)).toEqual(['opencode', 'gemini', 'claude', 'codex']);
    expect(ready.every((a) => a.source === 'ready' && a.status === 'disabled')).toBe(true);
    await expect(services.hostedAgents.check('opencode')).rejects.toMatchObject({ message: expect.stringMatching(/not enabled/) });
    // A folder that holds an `opencode`: the command becomes that program.
    const bin = path.join(dir, 'bin');
    await mkdir(bin);
    await writeFile(path.join(bin, 'opencode'), '#!/bin/sh\n', { mode: 0o755 });
    await services.hostedAgents.enable('opencode', true, bin);
    const written = JSON.parse(readFileSync(trust.store.file, 'utf8')) as { agents: Record<string, { command: string; args: string[]; network: { hosts: string[] } }> };
    expect(written.agents.opencode).toMatchObject({ command: path.join(bin, 'opencode'), args: ['acp'] });
    expect(written.agents.opencode!.network.hosts.length).toBeGreaterThan(0);
    expect((await services.hostedAgents.list()).find((a) => a.name === 'opencode')).toMatchObject({ source: 'user', status: 'ready' });
    await services.hostedAgents.enable('opencode', false);
    expect((await services.hostedAgents.list()).find((a) => a.name === 'opencode')).toMatchObject({ source: 'user', status: 'disabled' });
    await expect(services.hostedAgents.check('opencode')).rejects.toMatchObject({ message: expect.stringMatching(/disabled/) });
  });

  it('a program that is not there says so, and a bad name or key is a problem with its place', async () => {
    const problems: string[] = [];
    writeUserSettings(trust.configDir, { agents: { gone: { command: '/nonexistent/agent' }, loupe: { command: 'x' }, 'Bad Name': { command: 'x' }, typo: { command: 'x', arg: [] } } });
    await open({});
    expect((await services.hostedAgents.list()).find((a) => a.name === 'gone')).toMatchObject({ status: 'missing' });
    await expect(services.hostedAgents.check('gone')).rejects.toMatchObject({ code: 'AGENT_UNAVAILABLE', message: expect.stringMatching(/not found/) });
    const reader = new UserSettings(trust.configDir, { report: (p) => problems.push(`${p.line}:${p.message}`) });
    expect(reader.agents().map((a) => a.name)).toEqual(['gone']);
    expect(problems.join('\n')).toMatch(/not "loupe"/);
    expect(problems.join('\n')).toMatch(/arg/);
  });
});
