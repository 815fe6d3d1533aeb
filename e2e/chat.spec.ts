// The agent end to end: `loupe serve` with the scripted OpenAI-compatible server as its model.
// A reply streams into the chat; a bash call waits on an approval card until allowed, then its
// output shows in the tool card; code blocks are coloured; an edit's "Open diff" brings the
// timeline and the diff view to the front; the settings dialog points the app at a second server. Needs `npm run build` first.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { pieces, startScriptedLlm, userPrompt, type RecordedRequest, type ScriptedLlm, type ScriptedReply } from '../test/support/scriptedLlm';
import { startServe, type Served } from './support/serve';

let root: string;
let project: string;
let served: Served;
let llmA: ScriptedLlm;
let llmB: ScriptedLlm;

const SHOTS = path.resolve('test-results', 'chat');

const SNIPPET = [
  '// Greets whoever is named, politely.',
  'export function greet(name: string): string {',
  '  const greeting = "hello";',
  '  return `${greeting}, ${name}!`;',
  '}',
].join('\n');
const SNIPPET_REPLY = `Here is a snippet:\n\n\`\`\`ts\n${SNIPPET}\n\`\`\`\n\nAnd the shell:\n\n\`\`\`bash\nnpm test -- --watch # <b>not</b> HTML\n\`\`\`\n`;

/** The model: answers by the request's prompt and the last tool it called. */
function scriptA(req: RecordedRequest): ScriptedReply {
  const messages = req.body.messages ?? [];
  const last = messages[messages.length - 1];
  if (last?.role === 'tool') {
    const lastCall = [...messages].reverse().find((m) => m.role === 'assistant' && m.tool_calls?.length)?.tool_calls?.[0]?.function.name;
    if (lastCall === 'read_file') return { toolCalls: [{ name: 'edit_file', arguments: JSON.stringify({ path: 'src/greet.ts', old_str: '"hello"', new_str: '"goodbye"', reason: 'Say goodbye' }) }] };
    if (lastCall === 'edit_file') return { content: 'Edited `src/greet.ts`.' };
    if (typeof last.content === 'string' && last.content.includes('denied')) return { content: `The tool said: ${last.content}` };
    return { content: 'The command ran and printed its output.' };
  }
  const prompt = userPrompt(req);
  if (prompt.includes('clean')) return { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'rm -rf build', description: 'Clean' }) }] };
  if (prompt.includes('wait')) return { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'sleep 30', description: 'Wait' }) }] };
  if (prompt.includes('run')) return { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'echo loupe-bash-output && echo second line', description: 'Print two lines' }) }] };
  if (prompt.includes('edit')) return { toolCalls: [{ name: 'read_file', arguments: JSON.stringify({ path: 'src/greet.ts' }) }] };
  if (prompt.includes('snippet')) return { content: SNIPPET_REPLY, frameDelayMs: 5 };
  if (prompt.includes('ponder')) return { content: '<think>\nLet me weigh it: six times seven.\n</think>\n\nThe answer is 42.', frameDelayMs: 5 };
  return { content: 'Hello **there**, streamed in pieces.\n\nHere is code:\n\n```ts\nconst answer = 42;\n```\n', frameDelayMs: 15 };
}

async function openAgent(page: Page) {
  await page.goto(served.url);
  await expect(page.getByTestId('workspace-root')).toContainText('chat-project');
  await page.getByTestId('agent-tab').click();
  await expect(page.getByTestId('chat-input')).toBeVisible();
}

async function say(page: Page, text: string) {
  await page.getByTestId('chat-input').fill(text);
  await page.getByTestId('chat-input').press('Enter');
}

test.beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-chat-')));
  project = path.join(root, 'chat-project');
  await mkdir(path.join(project, 'src'), { recursive: true });
  await writeFile(path.join(project, 'src/greet.ts'), 'export const greeting = "hello";\n');
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=e@x', '-c', 'user.name=E', ...args], { cwd: project });
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'init');
  llmA = await startScriptedLlm(scriptA);
  llmB = await startScriptedLlm(() => ({ content: 'Reply from the second server.' }));
  // The approval cards are the subject: commands ask, so the sandbox is off (sandbox.spec has it on).
  served = await startServe(project, { OPENAI_BASE_URL: llmA.baseURL, LOUPE_MODEL: 'scripted', OPENAI_API_KEY: 'sk-env' }, { settings: { sandbox: 'off' } });
  await mkdir(SHOTS, { recursive: true });
});

test.afterAll(async () => {
  await served?.stop();
  await llmA?.close();
  await llmB?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

test('a reply streams into the chat as Markdown', async ({ page }) => {
  expect(pieces('Hello **there**').length).toBeGreaterThan(1);
  await openAgent(page);
  await say(page, 'hello');
  await expect(page.locator('[data-testid="chat-message"][data-role="user"]')).toHaveText('hello');
  const reply = page.locator('[data-testid="chat-message"][data-role="assistant"]').last();
  await expect(reply).toContainText('Hello there, streamed in pieces.');
  await expect(reply.locator('strong')).toHaveText('there');
  await expect(reply.locator('pre')).toContainText('const answer = 42;');
  await expect(page.getByTestId('chat-send')).toBeVisible();
  await expect(page.getByTestId('usage-meter')).toHaveAttribute('data-tokens', /^[1-9][0-9]*$/);
  await expect(page.getByTestId('usage-meter')).toHaveAttribute('title', /tokens/);
});

test('reasoning shows collapsed, apart from the answer', async ({ page }) => {
  await openAgent(page);
  await say(page, 'ponder this');
  const answer = page.getByTestId('chat-message').filter({ hasText: 'The answer is 42.' });
  await expect(answer).toBeVisible();
  await expect(answer).not.toContainText('weigh');
  const reasoning = page.getByTestId('chat-reasoning').last();
  await expect(reasoning.locator('summary')).toHaveText('Reasoning');
  await expect(reasoning.locator('.chat-reasoning-text')).toBeHidden();
  await reasoning.locator('summary').click();
  await expect(reasoning.locator('.chat-reasoning-text')).toHaveText('Let me weigh it: six times seven.');
});

test('code blocks are coloured by Monaco, labelled, and copy their source', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await openAgent(page);
  await say(page, 'show me a snippet');
  const reply = page.locator('[data-testid="chat-message"][data-role="assistant"]').last();
  await expect(page.getByTestId('chat-send')).toBeVisible();
  const [ts, sh] = [reply.getByTestId('chat-code-block').first(), reply.getByTestId('chat-code-block').nth(1)];
  await expect(ts).toHaveAttribute('data-colored', 'full');
  await expect(ts.locator('.md-code-lang')).toHaveText('ts');
  await expect(sh.locator('.md-code-lang')).toHaveText('bash');
  // Tokens of different kinds, in different colours: the theme's token CSS is in the page.
  const tokens = ts.locator('code span[class*="mtk"]');
  const kinds = await tokens.evaluateAll((els) => [...new Set(els.map((e) => e.className))]);
  expect(kinds.length).toBeGreaterThanOrEqual(3);
  const colours = await tokens.evaluateAll((els) => [...new Set(els.map((e) => getComputedStyle(e).color))]);
  expect(colours.length).toBeGreaterThanOrEqual(3);
  expect((await ts.locator('pre').innerText()).replace(/\u00a0/g, ' ')).toBe(SNIPPET);
  // Model text is never HTML, coloured or not.
  await expect(sh).toHaveAttribute('data-colored', 'full');
  await expect(sh.locator('b')).toHaveCount(0);
  await expect(sh.locator('pre')).toContainText('<b>not</b> HTML');
  await page.screenshot({ path: path.join(SHOTS, 'chat-code.png') });

  await ts.getByTestId('chat-code-copy').click();
  await expect(ts.getByTestId('chat-code-copy')).toHaveText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(SNIPPET);
});

test('a bash call waits on an approval card until allowed, then shows its output', async ({ page }) => {
  await openAgent(page);
  await say(page, 'run the command');
  const card = page.locator('[data-testid="approval-card"][data-kind="bash"]');
  await expect(card).toBeVisible();
  await expect(card).toContainText('echo loupe-bash-output');
  await expect(card).toContainText('no rule');
  const tool = page.locator('[data-testid="tool-call"][data-tool="bash"]').last();
  await expect(tool).toHaveAttribute('data-status', 'running');
  await expect(page.getByTestId('chat-stop')).toBeVisible();
  await page.screenshot({ path: path.join(SHOTS, 'chat-approval.png') });

  await card.getByTestId('approval-allow-once').click();
  await expect(page.getByTestId('approval-card')).toHaveCount(0);
  await expect(tool).toHaveAttribute('data-status', 'done');
  await expect(tool.getByTestId('tool-call-output')).toContainText('loupe-bash-output');
  await expect(tool.getByTestId('tool-call-output')).toContainText('second line');
  await expect(page.locator('[data-testid="chat-message"][data-role="assistant"]').last()).toContainText('The command ran');
  await page.screenshot({ path: path.join(SHOTS, 'chat-tool-done.png') });
});

test('an edit appears in the timeline and opens in the diff view', async ({ page }) => {
  await openAgent(page);
  await say(page, 'edit the greeting');
  const tool = page.locator('[data-testid="tool-call"][data-tool="edit_file"]');
  await expect(tool).toHaveAttribute('data-status', 'done');
  // What changed (−/+), and a link to the modification.
  await expect(tool.getByTestId('tool-call-diff').locator('[data-sign="+"]')).toContainText('goodbye');
  await expect(tool.getByTestId('tool-call-modification')).toBeVisible();
  await expect(page.locator('[data-testid="chat-message"][data-role="assistant"]').last()).toContainText('Edited src/greet.ts');
  await page.screenshot({ path: path.join(SHOTS, 'chat-edit.png') });
  expect(await readFile(path.join(project, 'src/greet.ts'), 'utf8')).toBe('export const greeting = "goodbye";\n');

  // "Open diff" on the card: the Changes tab comes to the front with the modification open.
  await tool.getByTestId('tool-call-modification').click();
  await expect(page.getByTestId('review-tab')).toHaveAttribute('aria-selected', 'true');
  const diff = page.getByTestId('diff-view');
  await expect(diff).toBeVisible();
  await expect(diff).toHaveAttribute('data-state', 'ready');
  await expect(diff).toHaveAttribute('data-file', 'src/greet.ts');
  await expect(diff.locator('.editor.modified')).toContainText('goodbye');
  const id = await diff.getAttribute('data-modification-id');
  expect(id).toBeTruthy();
  const row = page.locator(`[data-testid="timeline-entry"][data-modification-id="${id}"]`);
  await expect(row).toContainText('greet.ts');
  await expect(row).toHaveAttribute('aria-selected', 'true');
  await page.screenshot({ path: path.join(SHOTS, 'chat-open-diff.png') });

  // The timeline row opens the same diff.
  await page.getByTestId('diff-close').click();
  await expect(diff).toHaveCount(0);
  await row.click();
  await expect(diff).toHaveAttribute('data-state', 'ready');
  await expect(diff).toHaveAttribute('data-modification-id', id!);
});

test('Esc on an approval card denies it, and the agent receives the message', async ({ page }) => {
  await openAgent(page);
  await say(page, 'clean the build');
  const card = page.locator('[data-testid="approval-card"][data-kind="bash"]');
  await expect(card).toContainText('rm -rf build');
  await card.getByLabel('Message for the agent').fill('keep the build folder');
  await card.getByLabel('Message for the agent').press('Escape');
  await expect(page.getByTestId('approval-card')).toHaveCount(0);
  await expect(page.locator('[data-testid="tool-call"][data-tool="bash"]').last()).toHaveAttribute('data-status', 'error');
  await expect(page.locator('[data-testid="chat-message"][data-role="assistant"]').last()).toContainText('keep the build folder');
});

test('Stop ends a request waiting on an approval: the card goes, the call is marked stopped', async ({ page }) => {
  await openAgent(page);
  await say(page, 'wait a while');
  await expect(page.locator('[data-testid="approval-card"][data-kind="bash"]')).toBeVisible();
  await page.getByTestId('chat-stop').click();
  await expect(page.getByTestId('approval-card')).toHaveCount(0);
  const tool = page.locator('[data-testid="tool-call"][data-tool="bash"]').last();
  await expect(tool).toHaveAttribute('data-status', 'error');
  await expect(page.getByTestId('chat-send')).toBeVisible();
});

// Issue 26: the way to connect comes before anything is typed, not as an error after it
// (context.spec.ts connects through the panel).
test('with no model configured the chat offers to connect one, and Send waits for it', async ({ page }) => {
  const bare = await startServe(project, { OPENAI_BASE_URL: '', LOUPE_MODEL: '', OPENAI_API_KEY: '' });
  try {
    await page.goto(bare.url);
    await page.getByTestId('agent-tab').click();
    await expect(page.getByTestId('connect-model')).toContainText('Connect a model');
    await expect(page.locator('[data-testid="connect-preset"]')).toHaveCount(9);
    await page.getByTestId('chat-input').fill('hello?');
    await expect(page.getByTestId('chat-send')).toBeDisabled();
    await page.getByTestId('chat-input').press('Enter');
    await expect(page.getByTestId('chat-input')).toHaveValue('hello?');
    await expect(page.locator('[data-testid="chat-message"][data-role="user"]')).toHaveCount(0);
  } finally {
    await bare.stop();
  }
});

// Last: it points the app at the second server for good.
test('settings save and take effect: the next message goes to the second server', async ({ page }) => {
  await openAgent(page);
  await page.getByTestId('settings-open').click();
  await expect(page.getByTestId('settings-base-url')).toHaveValue(llmA.baseURL);
  await expect(page.getByTestId('settings-model')).toHaveValue('scripted');
  // Where Loupe's own log is, for a person chasing a crash.
  await expect(page.getByTestId('settings-log-file')).toContainText(path.join(served.home, 'logs', 'loupe.log'));
  await page.getByTestId('settings-base-url').fill(llmB.baseURL);
  await page.getByTestId('settings-model').fill('scripted');
  await page.getByTestId('settings-api-key').fill('sk-from-settings');
  await page.getByRole('button', { name: 'Test connection' }).click();
  await expect(page.getByTestId('settings-test-result')).toContainText('Connected');
  await page.screenshot({ path: path.join(SHOTS, 'settings.png') });
  await page.getByTestId('settings-save').click();
  await expect(page.getByTestId('settings-dialog')).toHaveCount(0);

  await page.getByTestId('chat-new-session').click();
  await say(page, 'who are you');
  await expect(page.locator('[data-testid="chat-message"][data-role="assistant"]').last()).toContainText('Reply from the second server.');
  expect(llmB.completions.at(-1)?.headers.authorization).toBe('Bearer sk-from-settings');

  // Reopened: the key is not sent back, only that one is saved.
  await page.getByTestId('settings-open').click();
  await expect(page.getByTestId('settings-base-url')).toHaveValue(llmB.baseURL);
  await expect(page.getByTestId('settings-api-key')).toHaveValue('');
  await expect(page.getByTestId('settings-api-key')).toHaveAttribute('placeholder', /key is saved/);
  // Where it is kept, said plainly (no keychain in this run: the owner-only settings file).
  await expect(page.getByTestId('settings-key-where')).toContainText(/settings\.json, in plain text readable only by your user account/);
});
