// An agent's first edit on a cold TypeScript server: the server cannot say within the write's
// bound (the first check loads the whole project), so the tool's result says "Diagnostics
// unavailable" — and once the server answers, that answer is appended to the log as a later fact
// and the timeline row and the diff show it ("+1 error", the squiggle). Through the real
// `loupe serve`, the real TypeScript server and the scripted model. Needs `npm run build` first.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { expectHoverMessage, readThenEdit, startAgentProject, type AgentProject } from './support/agentProject';

const SHOTS = path.resolve('test-results', 'lateDiagnostics');
const MESSAGE = "Type 'string' is not assignable to type 'number'.";

let app: AgentProject;
const script = readThenEdit({ spell: { path: 'src/total.ts', old_str: 'number = 1 + 2;', new_str: 'number = "three";', reason: 'Spell the total' } });

test.beforeAll(async () => {
  app = await startAgentProject(
    'late-diag',
    {
      'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'es2022', lib: ['es2022'] }, include: ['src'] }),
      // The default bound (3 s) is what a cold server missed here; 1 ms makes missing it certain
      // on any machine, however fast, while the server still answers in its own time.
      '.loupe/config.json': JSON.stringify({ limits: { diagnostics_wait_ms: 1 } }),
      'src/total.ts': '// The total of the order.\nexport const total: number = 1 + 2;\n',
    },
    script,
    { lsp: true },
  );
});

test.afterAll(async () => {
  await app?.stop();
});

test('the first edit on a cold server: the result says unavailable, then the row and the diff show the error when it comes', async ({ page }) => {
  test.setTimeout(240_000);
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.goto(app.served.url);
  await expect(page.getByTestId('workspace-root')).toContainText('late-diag');
  await page.getByTestId('agent-tab').click();
  await page.getByTestId('chat-input').fill('spell the total out');
  await page.getByTestId('chat-input').press('Enter');
  await expect(page.locator('[data-testid="tool-call"][data-tool="edit_file"]')).toHaveAttribute('data-status', 'done', { timeout: 120_000 });
  await expect(page.getByTestId('chat-send')).toBeVisible({ timeout: 60_000 });

  // What the model was told: the server could not say in time.
  const told = app.llm.requests.flatMap((r) => r.body.messages ?? []).filter((m) => m.role === 'tool').map((m) => String(m.content));
  expect(told.find((t) => t.startsWith('Edited src/total.ts'))).toMatch(/Diagnostics unavailable \(typescript-language-server/);

  await page.getByTestId('review-tab').click();
  const row = page.locator('[data-testid="timeline-entry"][data-file="src/total.ts"]');
  await row.click();
  // The server's answer arrives after the request ended: the row (and the open diff) follow it.
  await expect(row.getByTestId('timeline-diagnostics')).toHaveText('+1 error', { timeout: 120_000 });
  const diff = page.getByTestId('diff-view');
  await expect(diff.getByTestId('diff-diagnostics')).toHaveText('+1 error');
  await expect(diff.locator('.diff-host')).toHaveAttribute('data-problems', '1');
  await expect(diff.locator('.squiggly-error')).toHaveCount(1, { timeout: 20_000 });
  await expectHoverMessage(page, diff, MESSAGE);
  await page.screenshot({ path: path.join(SHOTS, 'late-1920.png') });
  await page.setViewportSize({ width: 1024, height: 700 });
  await page.screenshot({ path: path.join(SHOTS, 'late-1024.png') });

  // Append-only: the modification's line still says what was known when it was written; the
  // server's answer is a later line about it.
  const lines = (await readFile(path.join(app.project, '.loupe/modifications.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  const [mod, ...facts] = lines;
  expect(mod).toMatchObject({ type: 'modification', file: 'src/total.ts', diagnostics: { available: false } });
  expect(facts).toEqual([
    expect.objectContaining({ type: 'diagnostics', modification_id: mod.modification_id, diagnostics: expect.objectContaining({ available: true, errors: 1, introduced: [expect.objectContaining({ line: 2, message: MESSAGE })] }) }),
  ]);
});
