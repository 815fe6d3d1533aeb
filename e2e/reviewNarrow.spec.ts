// The review diff at 1024×700: the centre column is about 420 px there, so the diff shows inline
// (side by side left ~80 px a side) and the header wraps instead of cutting Approve off; at 1920
// it stays side by side. Needs `npm run build` first.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { expect, test, type Locator } from '@playwright/test';
import type { RecordedRequest, ScriptedReply } from '../test/support/scriptedLlm';
import { sayAndWait, startAgentProject, VIEWPORTS, type AgentProject } from './support/agentProject';

const SHOTS = path.resolve('test-results', 'review-narrow');
const SOURCE = Array.from({ length: 30 }, (_, i) => `export const value${i + 1} = ${i + 1}; // a line long enough to need some room on screen`).join('\n') + '\n';

function script(req: RecordedRequest): ScriptedReply {
  const messages = req.body.messages ?? [];
  const done = messages.filter((m) => m.role === 'tool').length;
  if (done === 0) return { toolCalls: [{ name: 'read_file', arguments: JSON.stringify({ path: 'src/values.ts' }) }] };
  if (done === 1) return { toolCalls: [{ name: 'edit_file', arguments: JSON.stringify({ path: 'src/values.ts', old_str: 'export const value12 = 12;', new_str: 'export const value12 = 1200;', reason: 'Scale value12' }) }] };
  return { content: 'Scaled.' };
}

/** The element lies wholly inside the box (nothing of it cut off). */
async function inside(el: Locator, box: { x: number; y: number; width: number; height: number }) {
  const b = (await el.boundingBox())!;
  expect(b.x).toBeGreaterThanOrEqual(box.x - 0.5);
  expect(b.y).toBeGreaterThanOrEqual(box.y - 0.5);
  expect(b.x + b.width).toBeLessThanOrEqual(box.x + box.width + 0.5);
  expect(b.y + b.height).toBeLessThanOrEqual(box.y + box.height + 0.5);
}

for (const [width, height] of VIEWPORTS) {
  test.describe(`${width}x${height}`, () => {
    let fx: AgentProject;

    test.beforeAll(async () => {
      await mkdir(SHOTS, { recursive: true });
      fx = await startAgentProject('narrow-project', { 'src/values.ts': SOURCE }, script);
    });
    test.afterAll(async () => {
      await fx?.stop();
    });

    test('the diff is usable: inline when the centre is narrow, every header button in view', async ({ page }) => {
      await page.setViewportSize({ width, height });
      await page.goto(fx.served.url);
      await page.getByTestId('agent-tab').click();
      await sayAndWait(page, 'scale value12');
      await page.getByTestId('review-tab').click();
      await page.getByTestId('timeline-entry').filter({ hasText: 'values.ts' }).first().click();
      const pane = page.getByTestId('diff-view');
      await expect(pane).toHaveAttribute('data-state', 'ready');
      const modified = pane.locator('.editor.modified');
      await expect(modified).toBeVisible();
      await expect(pane.locator('.view-line').filter({ hasText: '1200' }).first()).toBeVisible();

      const paneBox = (await pane.boundingBox())!;
      const viewport = { x: 0, y: 0, width, height };
      for (const id of ['review-approve', 'review-rollback', 'diff-layout-side-by-side', 'diff-layout-inline', 'diff-close']) {
        await inside(pane.getByTestId(id), paneBox);
        await inside(pane.getByTestId(id), viewport);
      }
      const sides = await pane.locator('.editor.original').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().width));
      const modifiedWidth = (await modified.boundingBox())!.width;
      if (width === 1024) {
        // Inline: one editor the pane's width; the toggle says so and why.
        await expect(pane.locator('.diff-host')).toHaveAttribute('data-layout', 'inline');
        await expect(pane.getByTestId('diff-layout-inline')).toHaveAttribute('aria-pressed', 'true');
        await expect(pane.getByTestId('diff-layout-side-by-side')).toHaveAttribute('title', /wider/);
        expect(modifiedWidth).toBeGreaterThan(300);
      } else {
        await expect(pane.locator('.diff-host')).toHaveAttribute('data-layout', 'side-by-side');
        expect(Math.min(modifiedWidth, ...sides)).toBeGreaterThan(400);
      }
      await page.screenshot({ path: path.join(SHOTS, `diff-${width}.png`) });

      await pane.getByTestId('review-approve').click();
      await expect(pane.getByTestId('review-approve')).toHaveText(/Approved/);
    });
  });
}
