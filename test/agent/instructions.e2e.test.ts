// What the agent is told, end to end: `loupe run --json` (the built CLI) on a real git repo with
// every form of instruction file, against the scripted server, which records each system
// prompt it receives. Needs `npm run build` first.
import { execFileSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChatEvent } from '../../src/shared/contract';
import { createToolRegistry } from '../../src/main/agent/tools/registry';
import { runLoupe, useCliFixture } from '../support/cli';
import type { RecordedRequest } from '../support/scriptedLlm';
import { git, writeTree } from '../support/tmp';
import { call } from './agentHarness';

const fx = useCliFixture('loupe-instructions-');
let n = 0;

const FORMS = {
  'AGENTS.md': 'MARK-ROOT-AGENTS: use tabs.\n',
  'CLAUDE.md': 'MARK-ROOT-CLAUDE: prefer small functions.\n',
  '.github/copilot-instructions.md': 'MARK-COPILOT: write JSDoc.\n',
  '.cursorrules': 'MARK-CURSORRULES: no default exports.\n',
  '.cursor/rules/always.mdc': '---\ndescription: Always\nalwaysApply: true\n---\nMARK-CURSOR-ALWAYS: answer in English.\n',
  '.cursor/rules/api-ts.mdc': '---\nglobs: packages/api/**/*.ts\nalwaysApply: false\n---\nMARK-CURSOR-GLOB: validate every request body.\n',
  '.cursor/rules/db.mdc': '---\ndescription: Database migration conventions\n---\nMARK-CURSOR-ON-REQUEST-BODY\n',
  'packages/api/AGENTS.md': 'MARK-NESTED-API-AGENTS: return errors as JSON.\n',
  'packages/api/CLAUDE.md': 'MARK-NESTED-API-CLAUDE: log with pino.\n',
  'packages/api/src/server.ts': 'export const port = 3000;\n',
  'packages/web/AGENTS.md': 'MARK-NESTED-WEB: use React.\n',
  'packages/web/app.tsx': 'export {};\n',
};

async function repo(files: Record<string, string>): Promise<string> {
  const dir = path.join(fx.sandbox, `repo${++n}`);
  await writeTree(dir, files);
  git(dir, 'init', '-q');
  git(dir, 'add', '.');
  git(dir, 'commit', '-qm', 'init');
  return dir;
}

async function home(personal?: string): Promise<string> {
  const dir = path.join(fx.sandbox, `home${++n}`);
  await mkdir(dir, { recursive: true });
  if (personal) await writeFile(path.join(dir, 'AGENTS.md'), personal);
  return dir;
}

async function run(dir: string, loupeHome: string, args: string[] = ['--json']) {
  const r = await runLoupe(['run', '--cwd', dir, '--deny', ...args, 'work on the api'], {
    env: { LOUPE_HOME: loupeHome, LOUPE_KEYCHAIN: 'off', LOUPE_MODEL: 'scripted', OPENAI_BASE_URL: fx.llm.baseURL, OPENAI_API_KEY: 'k' },
  });
  const events: ChatEvent[] = args.includes('--json') ? r.stdout.trim().split('\n').map((l) => JSON.parse(l)) : [];
  return { ...r, events, prompts: fx.llm.completions.map(systemOf) };
}

const systemOf = (req: RecordedRequest): string => String(req.body.messages?.[0]?.role === 'system' ? req.body.messages[0].content : '');

describe('the system prompt the model receives', () => {
  it('holds each instruction form, nested ones only once the agent works in their folder, the environment and the registry’s tools', async () => {
    const dir = await repo(FORMS);
    const loupeHome = await home('MARK-PERSONAL: I like short answers.\n');
    fx.llm.enqueue({ toolCalls: [call('r1', 'read_file', { path: 'packages/api/src/server.ts' })] }, { content: 'Read it.' });
    const { code, events, prompts } = await run(dir, loupeHome);
    expect(code).toBe(0);
    expect(prompts).toHaveLength(2);
    const [first, second] = prompts;

    for (const mark of ['MARK-PERSONAL', 'MARK-ROOT-AGENTS', 'MARK-ROOT-CLAUDE', 'MARK-COPILOT', 'MARK-CURSORRULES', 'MARK-CURSOR-ALWAYS']) {
      expect(first, mark).toContain(mark);
      expect(second, mark).toContain(mark);
    }
    // Cursor's "agent requested" rule: its description, not its body.
    expect(first).toContain('- .cursor/rules/db.mdc: Database migration conventions');
    expect(first).not.toContain('MARK-CURSOR-ON-REQUEST-BODY');
    // Nested files and the glob rule apply from the turn after the agent worked in packages/api.
    for (const mark of ['MARK-NESTED-API-AGENTS', 'MARK-NESTED-API-CLAUDE', 'MARK-CURSOR-GLOB']) {
      expect(first, mark).not.toContain(mark);
      expect(second, mark).toContain(mark);
    }
    expect(second).toContain('## packages/api/AGENTS.md (for work in packages/api/)');
    // Never a folder the agent did not work in.
    expect(second).not.toContain('MARK-NESTED-WEB');
    // General first, the nearest last: it reads last and wins.
    expect(second.indexOf('MARK-PERSONAL')).toBeLessThan(second.indexOf('MARK-ROOT-AGENTS'));
    expect(second.indexOf('MARK-ROOT-AGENTS')).toBeLessThan(second.indexOf('MARK-NESTED-API-AGENTS'));

    // The environment as it is.
    expect(first).toContain(`- Workspace root: ${dir}`);
    expect(first.match(/^- Git: .*$/m)?.[0]).toBe('- Git: branch main: clean');
    expect(first).toMatch(/^- OS: \w+ \(.+\); commands run in \/\S+$/m);
    const d = new Date();
    expect(first).toContain(`- Today: ${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`);
    expect(first).toMatch(/^- Sandbox: /m);

    // The tools: exactly the registry's, in its order.
    expect([...first.matchAll(/^- `([a-z_]+)` \(/gm)].map((m) => m[1])).toEqual(createToolRegistry().list().map((t) => t.name));

    // `--json`: the prompt as sent, when first sent and when a folder's instructions joined it.
    const announced = events.filter((e) => e.type === 'system_prompt');
    expect(announced.map((e) => e.type === 'system_prompt' && e.text)).toEqual([first, second]);
    const files = (i: number) => (announced[i].type === 'system_prompt' ? announced[i].files.map((f) => f.path) : []);
    expect(files(0)).toEqual([
      path.join(loupeHome, 'AGENTS.md'),
      'AGENTS.md',
      'CLAUDE.md',
      '.github/copilot-instructions.md',
      '.cursorrules',
      '.cursor/rules/always.mdc',
      '.cursor/rules/db.mdc',
    ]);
    expect(files(1)).toEqual([...files(0).slice(0, 6), '.cursor/rules/api-ts.mdc', 'packages/api/AGENTS.md', 'packages/api/CLAUDE.md', '.cursor/rules/db.mdc']);
  });

  it('is announced once per session when it does not change, and without instruction files stays small', async () => {
    const dir = await repo({ 'src/a.ts': 'export const a = 1;\n' });
    fx.llm.enqueue({ toolCalls: [call('r1', 'read_file', { path: 'src/a.ts' })] }, { toolCalls: [call('r2', 'list_files', { pattern: '**/*.ts' })] }, { content: 'Done.' });
    const { code, events, prompts } = await run(dir, await home());
    expect(code).toBe(0);
    expect(prompts).toHaveLength(3);
    expect(new Set(prompts).size).toBe(1);
    const announced = events.filter((e) => e.type === 'system_prompt');
    expect(announced).toHaveLength(1);
    expect(announced[0]).toMatchObject({ type: 'system_prompt', text: prompts[0], files: [], skipped: [] });
    // Announced before the first turn, after the request started.
    expect(events.findIndex((e) => e.type === 'system_prompt')).toBeLessThan(events.findIndex((e) => e.type === 'turn_started'));
    expect(prompts[0].length / 4).toBeLessThan(2_500);
  });

  it('skips a CLAUDE.md linked out of the folder and a FIFO named AGENTS.md with a notice, never reading or waiting on them', async () => {
    const dir = await repo({ 'src/a.ts': 'x\n' });
    const secret = path.join(fx.sandbox, `secret${n}.md`);
    await writeFile(secret, 'MARK-OUTSIDE-SECRET\n');
    await symlink(secret, path.join(dir, 'CLAUDE.md'));
    execFileSync('mkfifo', [path.join(dir, 'AGENTS.md')]);
    fx.llm.enqueue({ content: 'Nothing to do.' });
    const json = await run(dir, await home());
    expect(json.code).toBe(0);
    expect(json.prompts[0]).not.toContain('MARK-OUTSIDE-SECRET');
    expect(json.events.find((e) => e.type === 'system_prompt')).toMatchObject({
      files: [],
      skipped: [
        { path: 'AGENTS.md', reason: 'is a FIFO, socket or device, not a file, so it is not read' },
        { path: 'CLAUDE.md', reason: 'is a link to a file outside the workspace, so it is not read' },
      ],
    });
    // Without --json the notice is on stderr.
    fx.llm.enqueue({ content: 'Nothing to do.' });
    const human = await run(dir, await home(), []);
    expect(human.code).toBe(0);
    expect(human.stderr).toContain('(instruction file skipped: AGENTS.md is a FIFO, socket or device, not a file, so it is not read)');
    expect(human.stderr).toContain('(instruction file skipped: CLAUDE.md is a link to a file outside the workspace, so it is not read)');
  });
});
