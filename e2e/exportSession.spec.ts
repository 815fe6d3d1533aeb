// Export a session: from the chat's session bar as Markdown (readable: the conversation, the tool
// calls in the person's words, the diff, the usage) and JSON (complete), as downloads; and with
// `loupe export` on the command line, whose JSON `loupe import` takes into another folder. A
// secret the settings hold (an MCP server's token), which the person and a command both put in
// the conversation, appears in none of them.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, test, type Page } from '@playwright/test';
import { userPrompt, type RecordedRequest, type ScriptedReply } from '../test/support/scriptedLlm';
import { sayAndWait, startAgentProject, type AgentProject } from './support/agentProject';

const run = promisify(execFile);
const BIN = path.resolve('bin/loupe.mjs');
const SHOTS = path.resolve('test-results', 'export-session');
const SECRET = 'sk-live-E2E-7f3a9c41';

function script(req: RecordedRequest): ScriptedReply {
  const messages = req.body.messages ?? [];
  const last = messages.at(-1);
  if (last?.role === 'tool') {
    const calls = messages.filter((m) => m.role === 'tool').length;
    if (calls === 1) return { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: `echo ${SECRET}`, description: 'Show the token' }) }] };
    return { content: 'Wrote NOTES.md and checked the token.' };
  }
  if (userPrompt(req).includes('write the notes')) return { toolCalls: [{ name: 'write_file', arguments: JSON.stringify({ path: 'NOTES.md', content: '# Notes\n\n- export works\n' }) }] };
  return { content: 'ok' };
}

async function exported(page: Page, format: 'md' | 'json'): Promise<{ name: string; text: string }> {
  await page.getByTestId('session-export').click();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId(`session-export-${format}`).click()]);
  const file = await download.path();
  return { name: download.suggestedFilename(), text: await readFile(file!, 'utf8') };
}

test.beforeAll(async () => {
  await mkdir(SHOTS, { recursive: true });
});

for (const [width, height] of [
  [1024, 700],
  [1920, 1080],
] as const) {
  test.describe(`${width}x${height}`, () => {
    let agent: AgentProject;
    let other: string;
    test.beforeAll(async () => {
      agent = await startAgentProject(`export-${width}`, { 'README.md': '# demo\n' }, script, {
        settings: {
          permissions: [{ kind: 'bash', pattern: 'echo *', action: 'allow' }],
          // The secret lives in the person's settings: a (disabled) server's environment.
          mcpServers: { vault: { command: 'vault-mcp', env: { VAULT_TOKEN: SECRET }, disabled: true } },
        },
      });
      other = await realpath(await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-import-')));
    });
    test.afterAll(async () => {
      await agent?.stop();
      await rm(other, { recursive: true, force: true });
    });

    test('the session bar exports Markdown and JSON; loupe export and loupe import do the same; no secret in any', async ({ page }) => {
      await page.setViewportSize({ width, height });
      await page.goto(agent.served.url);
      await expect(page.getByTestId('workspace-root')).toContainText(`export-${width}`);
      await page.getByTestId('agent-tab').click();
      await sayAndWait(page, `write the notes; my token is ${SECRET}`);
      await expect(page.getByTestId('chat-message').filter({ hasText: 'Wrote NOTES.md' })).toBeVisible();

      await page.getByTestId('session-export').click();
      await expect(page.getByTestId('session-export-json')).toBeVisible();
      await page.screenshot({ path: path.join(SHOTS, `menu-${width}x${height}.png`) });
      await page.keyboard.press('Escape');

      const md = await exported(page, 'md');
      await writeFile(path.join(SHOTS, `session-${width}.md`), md.text);
      expect(md.name).toMatch(/^write-the-notes-my-token-is-sk-live-e2e-7f3-ses-[a-z0-9]+\.md$|^write-the-notes-.*\.md$/);
      expect(md.text).not.toContain(SECRET);
      expect(md.text).toContain('[secret from settings removed]');
      expect(md.text).toMatch(/^# write the notes/);
      expect(md.text).toContain('**You:**');
      expect(md.text).toContain('**Agent:**\n\nWrote NOTES.md and checked the token.');
      expect(md.text).toContain('- **Write file** `write_file` — `NOTES.md` — done');
      expect(md.text).toContain('`bash` — `echo [secret from settings removed]` — done');
      expect(md.text).toMatch(/```diff\n[^`]*\+# Notes\n\+\n\+- export works\n```/);
      expect(md.text).toMatch(/\*\*Usage:\*\* [\d,]+ tokens in, [\d,]+ out over 3 model calls/);
      await expect(page.getByTestId('session-export-result')).toContainText(`Downloaded ${md.name}`);
      await page.screenshot({ path: path.join(SHOTS, `downloaded-${width}x${height}.png`) });

      const json = await exported(page, 'json');
      expect(json.text).not.toContain(SECRET);
      const doc = JSON.parse(json.text);
      expect(doc).toMatchObject({ format: 'loupe-session', version: 1 });
      expect(doc.session.messages.length).toBeGreaterThanOrEqual(5);
      expect(doc.modifications.map((m: { file: string }) => m.file)).toEqual(['NOTES.md']);

      // The command line: the newest session, then imported into another folder.
      const env = { ...process.env, LOUPE_HOME: agent.served.home, HOME: agent.served.home, LOUPE_KEYCHAIN: 'off', LOUPE_LSP: 'off' };
      const cliMd = await run(process.execPath, [BIN, 'export', '--cwd', agent.project], { env });
      expect(cliMd.stdout).toContain('- **Write file** `write_file` — `NOTES.md` — done');
      expect(cliMd.stdout).not.toContain(SECRET);
      const file = path.join(other, 'export.json');
      await run(process.execPath, [BIN, 'export', '--cwd', agent.project, '--output', file], { env });
      const cliJson = await readFile(file, 'utf8');
      expect(cliJson).not.toContain(SECRET);
      expect(JSON.parse(cliJson).session.id).toBe(doc.session.id);
      await mkdir(path.join(other, 'proj'));
      const imported = await run(process.execPath, [BIN, 'import', file, '--cwd', path.join(other, 'proj')], { env });
      const id = imported.stdout.trim();
      expect(id).toBe(doc.session.id);
      expect(await readdir(path.join(other, 'proj', '.loupe', 'sessions'))).toEqual([`${id}.json`]);
      const kept = JSON.parse(await readFile(path.join(other, 'proj', '.loupe', 'sessions', `${id}.json`), 'utf8'));
      expect(kept.messages).toEqual(doc.session.messages);
    });
  });
}
