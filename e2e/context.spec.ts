// Context in view, end to end against `loupe serve` and the scripted model server: a fresh
// profile connects a model from the chat's own panel; the meter shows the server's usage (or
// an estimate, marked); `@` attaches files through the read rules; a pasted image reaches the
// model as an image part, and a text-only model refuses it; a compaction is a note whose
// summary opens. Needs `npm run build` first.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { startScriptedLlm, userPrompt, type RecordedRequest, type ScriptedLlm, type ScriptedReply } from '../test/support/scriptedLlm';
import { startServe, type Served } from './support/serve';

let root: string;
let project: string;
const SHOTS = path.resolve('test-results', 'context');
const NO_MODEL = { LOUPE_MODEL: '', OPENAI_BASE_URL: '', OPENAI_API_KEY: '', LOUPE_CONTEXT_TOKENS: '' };
// A 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

// Each test drives several model turns through loupe serve; on a loaded machine (two cores,
// load 15-18) the connect test took 53 s of the default 60.
test.describe.configure({ timeout: 120_000 });

const userMessages = (req: RecordedRequest) => (req.body.messages ?? []).filter((m) => m.role === 'user');

test.beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-context-')));
  project = path.join(root, 'context-project');
  await mkdir(path.join(project, 'src', 'main'), { recursive: true });
  await writeFile(path.join(project, 'src/main.ts'), 'export const entry = "MAIN-TS-CONTENT";\n');
  await writeFile(path.join(project, 'src/manifest.json'), '{}\n');
  await writeFile(path.join(project, 'src/main/util.ts'), 'export {};\n');
  await writeFile(path.join(project, '.env'), 'TOKEN=ENV-SECRET\n');
  for (const n of [1, 2, 3, 4]) await writeFile(path.join(project, `big${n}.txt`), `${`line ${n} `.repeat(12)}\n`.repeat(160));
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=e@x', '-c', 'user.name=E', ...args], { cwd: project });
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'init');
  await mkdir(SHOTS, { recursive: true });
});

test.afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

async function shoot(page: Page, name: string) {
  for (const [w, h] of [
    [1024, 700],
    [1920, 1080],
  ]) {
    await page.setViewportSize({ width: w, height: h });
    await page.screenshot({ path: path.join(SHOTS, `${name}-${w}.png`) });
  }
  await page.setViewportSize({ width: 1400, height: 860 });
}

async function open(page: Page, served: Served) {
  await page.goto(served.url);
  await expect(page.getByTestId('workspace-root')).toContainText('context-project');
}

/** Pastes a PNG into the chat input as the clipboard would hand it over. */
async function pasteImage(page: Page) {
  await page.getByTestId('chat-input').evaluate((el, bytes) => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array(bytes)], 'shot.png', { type: 'image/png' }));
    el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
  }, [...PNG]);
}

/** Drops a PNG on the chat input as a file manager would. */
async function dropImage(page: Page) {
  await page.getByTestId('chat-input').evaluate((el, bytes) => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array(bytes)], 'dropped.png', { type: 'image/png' }));
    el.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
    el.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, [...PNG]);
}

test.describe('a fresh profile without a model', () => {
  let llm: ScriptedLlm;
  let served: Served;
  test.beforeAll(async () => {
    // The scripted server speaks as vLLM does; the person picks the vLLM preset and points it here.
    llm = await startScriptedLlm((req) => (req.body.stream ? { content: 'Connected and answering.' } : { content: 'ready' }), { server: 'vllm' });
    served = await startServe(project, NO_MODEL);
  });
  test.afterAll(async () => {
    await served?.stop();
    await llm?.close();
  });

  test('the chat opens with the connect panel; a preset and Test connection enable Send, no dialog opened', async ({ page }) => {
    await open(page, served);
    // No modification yet: the column opens on the chat, and the panel is there before anything is typed.
    const panel = page.getByTestId('connect-model');
    await expect(panel).toBeVisible();
    await expect(page.getByTestId('chat-input')).toHaveValue('');
    await expect(page.locator('[data-testid="connect-preset"]')).toHaveText([/OpenAI/, /OpenRouter/, /DeepSeek/, /Mistral/, /Gemini/, /Ollama/, /LM Studio/, /vLLM/, /llama\.cpp/]);
    await page.getByTestId('chat-input').fill('hello there');
    await expect(page.getByTestId('chat-send')).toBeDisabled();
    // A provider that needs a key shows the key field; a local server does not.
    await page.locator('[data-testid="connect-preset"][data-preset="openrouter"]').click();
    await expect(page.getByTestId('connect-base-url')).toHaveValue('https://openrouter.ai/api/v1');
    await expect(page.getByTestId('connect-api-key')).toBeVisible();
    await page.locator('[data-testid="connect-preset"][data-preset="vllm"]').click();
    await expect(page.getByTestId('connect-base-url')).toHaveValue('http://127.0.0.1:8000/v1');
    await expect(page.getByTestId('connect-api-key')).toHaveCount(0);
    await shoot(page, 'connect-panel');
    await page.getByTestId('connect-base-url').fill(llm.baseURL);
    await page.getByTestId('connect-test').click();
    await expect(panel).toBeHidden();
    await expect(page.getByTestId('chat-send')).toBeEnabled();
    await expect(page.getByTestId('settings-dialog')).toHaveCount(0);
    // The test listed the models and asked the model one tiny question.
    expect(llm.requests.some((r) => r.method === 'GET' && r.path === '/v1/models')).toBe(true);
    expect(llm.completions.filter((r) => !r.body.stream)).toHaveLength(1);
    const saved = JSON.parse(await readFile(path.join(served.home, 'settings.json'), 'utf8'));
    expect(saved.llm).toMatchObject({ base_url: llm.baseURL, model: 'scripted' });
    await page.getByTestId('chat-send').click();
    await expect(page.locator('[data-testid="chat-message"][data-role="assistant"]').last()).toContainText('Connected and answering.');
  });
});

test.describe('a connected model', () => {
  let llm: ScriptedLlm;
  let served: Served;
  test.beforeAll(async () => {
    const reply = (req: RecordedRequest): ScriptedReply => {
      const prompt = userPrompt(req);
      if (prompt.includes('estimate')) return { content: 'Counted by Loupe.', usage: 'omit' };
      return { content: 'Seen.', usage: { prompt_tokens: 4321, completion_tokens: 79, total_tokens: 4400 } };
    };
    llm = await startScriptedLlm(reply, { models: [{ id: 'scripted', object: 'model', context_length: 64_000 }] });
    served = await startServe(
      project,
      { OPENAI_BASE_URL: llm.baseURL, LOUPE_MODEL: 'scripted', OPENAI_API_KEY: 'sk-test', LOUPE_CONTEXT_TOKENS: '' },
      { settings: { permissions: [{ kind: 'read', pattern: '.env', action: 'deny' }], llm: { models: { scripted: { images: true, input_usd_per_mtok: 1, output_usd_per_mtok: 2 } } } } },
    );
  });
  test.afterAll(async () => {
    await served?.stop();
    await llm?.close();
  });

  test('the meter shows the server’s usage exactly, and an estimate marked as one when it reports none', async ({ page }) => {
    await open(page, served);
    await page.getByTestId('chat-input').fill('how big is this?');
    await page.getByTestId('chat-input').press('Enter');
    const meter = page.getByTestId('usage-meter');
    await expect(meter).toHaveAttribute('data-tokens', '4400');
    await expect(meter).toHaveAttribute('data-context', '64000');
    await expect(meter).toHaveAttribute('data-estimated', 'false');
    await expect(meter).toContainText('4.4k / 64k');
    await expect(meter).toHaveAttribute('title', /4,400 tokens/);
    await expect(meter).toContainText('$0.0045');
    await page.getByTestId('chat-input').fill('now estimate it');
    await page.getByTestId('chat-input').press('Enter');
    await expect(meter).toHaveAttribute('data-estimated', 'true');
    const estimated = Number(await meter.getAttribute('data-tokens'));
    // The conversation grew by a question and an answer: the estimate is of the same order.
    expect(estimated).toBeGreaterThan(3000);
    await expect(meter).toContainText('~');
    await shoot(page, 'meter');
  });

  test('@ opens the picker; a chosen file is a chip and reaches the model; a denied file is not offered', async ({ page }) => {
    await open(page, served);
    const input = page.getByTestId('chat-input');
    await input.click();
    await input.pressSequentially('what is in @src/ma');
    const picker = page.getByTestId('mention-picker');
    await expect(picker).toBeVisible();
    await expect(picker.getByTestId('mention-item').first()).toHaveAttribute('data-path', 'src/main.ts');
    await shoot(page, 'mention-picker');
    await input.press('Enter');
    await expect(picker).toBeHidden();
    await expect(page.getByTestId('attachment-chip')).toHaveAttribute('data-path', 'src/main.ts');
    await expect(input).toHaveValue('what is in @src/main.ts ');
    // The read rule's file is never offered, however it is asked for.
    for (const q of ['.env', 'env', '.en']) {
      await input.fill('');
      await input.pressSequentially(`@${q}`);
      await expect(picker).toBeVisible();
      await expect(picker.locator('[data-testid="mention-item"][data-path=".env"]')).toHaveCount(0);
      await expect(picker.getByTestId('mention-item').or(picker.locator('.mention-empty'))).not.toHaveCount(0);
    }
    await input.press('Escape');
    await expect(picker).toBeHidden();
    await input.fill('what is in it?');
    await shoot(page, 'attachment-chip');
    await input.press('Enter');
    await expect(page.getByTestId('attachment-chip')).toHaveCount(0);
    await expect(page.getByTestId('message-attachment')).toContainText('src/main.ts');
    await expect(page.locator('[data-testid="chat-message"][data-role="assistant"]').last()).toContainText('Seen.');
    const sent = userMessages(llm.completions.at(-1)!).at(-1)!;
    expect(String(sent.content)).toContain('MAIN-TS-CONTENT');
    expect(JSON.stringify(llm.completions.map((r) => r.body))).not.toContain('ENV-SECRET');
  });

  test('a pasted image reaches the model as an image part; marked text-only, the model refuses it clearly', async ({ page }) => {
    await open(page, served);
    await page.getByTestId('chat-input').click();
    await pasteImage(page);
    await dropImage(page);
    await expect(page.locator('[data-testid="attachment-chip"][data-kind="image"]')).toHaveCount(2);
    await page.getByTestId('chat-input').fill('what is in this screenshot?');
    await page.getByTestId('chat-input').press('Enter');
    await expect(page.locator('[data-testid="chat-message"][data-role="assistant"]').last()).toContainText('Seen.');
    const content = userMessages(llm.completions.at(-1)!).at(-1)!.content as { type: string; text?: string; image_url?: { url: string } }[];
    const image = { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` } };
    expect(content).toEqual([{ type: 'text', text: 'what is in this screenshot?' }, image, image]);

    // The person marks the model text-only in Settings › Models.
    await page.getByTestId('settings-open').click();
    await page.locator('[data-testid="settings-model-row"][data-model="scripted"] [data-testid="settings-model-images"]').selectOption('false');
    await page.getByTestId('settings-save').click();
    await expect(page.getByTestId('settings-dialog')).toHaveCount(0);
    const before = llm.completions.length;
    await page.getByTestId('chat-input').click();
    await pasteImage(page);
    await expect(page.getByTestId('attach-notice')).toContainText('scripted is marked as text-only');
    await expect(page.locator('[data-testid="attachment-chip"][data-kind="image"]')).toHaveCount(0);
    await shoot(page, 'image-refused');
    expect(llm.completions.length).toBe(before);
  });
});

test.describe('a conversation that must compact', () => {
  let llm: ScriptedLlm;
  let served: Served;
  const PROMPT = 'Read big1.txt to big4.txt and say which line numbers they hold — “exactly”.';
  test.beforeAll(async () => {
    let turn = 0;
    llm = await startScriptedLlm((req) => {
      if (!req.body.stream) return { content: 'SUMMARY: big1 and big2 were read; each repeats its own number.' };
      turn++;
      return turn <= 4 ? { toolCalls: [{ name: 'read_file', arguments: JSON.stringify({ path: `big${turn}.txt` }) }] } : { content: 'They hold lines 1 to 4.' };
    });
    served = await startServe(project, { OPENAI_BASE_URL: llm.baseURL, LOUPE_MODEL: 'scripted', OPENAI_API_KEY: 'sk-test', LOUPE_CONTEXT_TOKENS: '12000' });
  });
  test.afterAll(async () => {
    await served?.stop();
    await llm?.close();
  });

  test('a compaction shows as a note whose summary opens, and the request survives word for word', async ({ page }) => {
    await open(page, served);
    // Five model turns and a summary call after each of the last reads: on a loaded machine
    // that took longer than the 10 s an expectation waits by default.
    await page.getByTestId('chat-input').fill(PROMPT);
    await page.getByTestId('chat-input').press('Enter');
    await expect(page.locator('[data-testid="chat-message"][data-role="assistant"]').last()).toContainText('They hold lines 1 to 4.', { timeout: 60_000 });
    const note = page.getByTestId('chat-compaction').first();
    await expect(note).toContainText(/Compacted \d+ messages? into a summary/);
    await note.locator('summary').click();
    await expect(note.getByTestId('chat-compaction-summary')).toHaveText('SUMMARY: big1 and big2 were read; each repeats its own number.');
    await shoot(page, 'compaction');
    const last = llm.completions.filter((r) => r.body.stream).at(-1)!;
    expect(userMessages(last).some((m) => typeof m.content === 'string' && (m.content === PROMPT || m.content.endsWith(`[The request being worked on:]\n${PROMPT}`)))).toBe(true);
  });
});
