// Workspace trust in the browser UI of `loupe serve`: a folder whose .loupe/config.json allows
// things is asked about once on open (trust-prompt, listing the allow rules and test commands);
// until the person trusts it the agent's commands still wait for approval; a change to the file
// while the app runs asks again; trusting records the config's sha256 in the user's settings.
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import type { RecordedRequest, ScriptedReply } from '../test/support/scriptedLlm';
import { startAgentProject, type AgentProject } from './support/agentProject';
import type { Served } from './support/serve';

let agent: AgentProject;
let project: string;
let served: Served;

const SHOTS = path.resolve('test-results', 'trust');
const CONFIG = { permissions: [{ kind: 'bash', pattern: 'node *', action: 'allow' }, { kind: 'bash', pattern: 'curl *', action: 'deny' }], tests: { javascript: 'node hostile-tests.js' } };
const configFile = () => path.join(project, '.loupe/config.json');

/** Runs `node run.js` (which the config allows), then repeats what the tool said. */
function script(req: RecordedRequest): ScriptedReply {
  const last = (req.body.messages ?? []).at(-1);
  if (last?.role !== 'tool') return { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'node run.js', description: 'run it' }) }] };
  return { content: `bash said: ${String(last.content).split('\n')[0]}` };
}

const trustedFolders = async () => JSON.parse(await readFile(path.join(served.home, 'settings.json'), 'utf8').catch(() => '{}')).trusted_folders ?? {};

async function send(page: Page, text: string) {
  await page.getByTestId('agent-tab').click();
  await page.getByTestId('chat-input').fill(text);
  await page.getByTestId('chat-input').press('Enter');
}

test.beforeAll(async () => {
  // A cloned repository: its config arrives committed with the rest.
  agent = await startAgentProject('cloned-project', { 'run.js': "console.log('ran');\n", '.loupe/config.json': JSON.stringify(CONFIG, null, 2) }, script, { settings: { sandbox: 'off' } });
  ({ project, served } = agent);
  await mkdir(SHOTS, { recursive: true });
});

test.afterAll(async () => {
  await agent?.stop();
});

test('asks on open with what the config allows; declined, its allow rules stay off; a changed config asks again; trusted, they apply', async ({ page }) => {
  await page.goto(served.url);
  await expect(page.getByTestId('workspace-root')).toContainText('cloned-project');
  const prompt = page.getByTestId('trust-prompt');
  await expect(prompt).toBeVisible();
  await expect(prompt).toContainText(`${project}/.loupe/config.json`);
  await expect(prompt.getByTestId('trust-allow')).toContainText('bash node *');
  await expect(prompt.getByTestId('trust-tests')).toContainText('javascript node hostile-tests.js');
  await expect(prompt).not.toContainText('curl');
  await page.screenshot({ path: path.join(SHOTS, 'trust-prompt.png') });

  // Declined: not asked again for this content, and `node *` still needs a yes.
  await prompt.getByTestId('trust-decline').click();
  await expect(prompt).toHaveCount(0);
  await page.reload();
  await expect(page.getByTestId('workspace-root')).toContainText('cloned-project');
  await expect(page.getByTestId('trust-prompt')).toHaveCount(0);
  // The status bar says the project's grants are off, and asks again on a click.
  await expect(page.getByTestId('trust-status')).toBeVisible();
  await page.screenshot({ path: path.join(SHOTS, 'trust-declined.png') });
  await page.getByTestId('trust-status').click();
  await expect(prompt).toBeVisible();
  await prompt.getByTestId('trust-decline').click();
  await expect(prompt).toHaveCount(0);
  await send(page, 'run it');
  const card = page.locator('[data-testid="approval-card"][data-kind="bash"]');
  await expect(card).toBeVisible();
  await expect(card.getByTestId('approval-subject')).toContainText('node run.js');
  await card.getByTestId('approval-deny').click();
  await expect(page.locator('[data-testid="chat-message"][data-role="assistant"]').last()).toContainText('PERMISSION_DENIED');
  expect(await trustedFolders()).toEqual({});

  // The file changes while the app runs (a pull, an editor): asked again, about the new content.
  await writeFile(configFile(), JSON.stringify({ ...CONFIG, permissions: [...CONFIG.permissions, { kind: 'webfetch', pattern: 'https://*', action: 'allow' }] }, null, 2));
  await expect(prompt).toBeVisible();
  await expect(prompt.getByTestId('trust-allow')).toContainText('webfetch https://*');

  await prompt.getByTestId('trust-accept').click();
  await expect(prompt).toHaveCount(0);
  const digest = createHash('sha256').update(await readFile(configFile())).digest('hex');
  await expect.poll(trustedFolders).toEqual({ [project]: expect.objectContaining({ config_sha256: digest }) });
  await page.reload();
  await expect(page.getByTestId('workspace-root')).toContainText('cloned-project');
  await expect(page.getByTestId('trust-prompt')).toHaveCount(0);
  await expect(page.getByTestId('trust-status')).toHaveCount(0);

  // Trusted: the allow rule applies, no card.
  await send(page, 'run it again');
  await expect(page.locator('[data-testid="chat-message"][data-role="assistant"]').last()).toContainText('bash said: ran');
  await expect(page.getByTestId('approval-card')).toHaveCount(0);
});
