// The Processes pane's Restart: the log view shows the new run's output at once, never the run
// before it (it kept the old one until the tab was switched). Needs `npm run build` first.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import type { ScriptedReply } from '../test/support/scriptedLlm';
import { sayAndWait, startAgentProject, VIEWPORTS, type AgentProject } from './support/agentProject';

const SHOTS = path.resolve('test-results', 'process-restart');
// Each run names itself on every line (a pid would repeat: the sandbox gives each run its own
// pid namespace), so the lines on screen say which run they came from.
// A tick a second keeps a run's first line on screen for a while, even at 700 px.
const SERVER = `const run = Math.random().toString(36).slice(2, 8); console.log('run ' + run + ' started'); let n = 0; setInterval(() => console.log('run ' + run + ' tick ' + ++n), 1000);`;

for (const [width, height] of VIEWPORTS) {
  test.describe(`${width}x${height}`, () => {
    let app: AgentProject;

    test.beforeAll(async () => {
      await mkdir(SHOTS, { recursive: true });
      const steps: ScriptedReply[] = [
        { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'node runs.js', description: 'Start the runner', run_in_background: true, wait_for: { regex: 'started', timeout: 20000 } }) }] },
        { content: 'Started.' },
      ];
      app = await startAgentProject('restart-project', { 'runs.js': SERVER }, (req) => steps[(req.body.messages ?? []).filter((m) => m.role === 'tool').length] ?? { content: 'Done.' });
    });
    test.afterAll(async () => {
      await app?.stop();
    });

    test('after Restart the log shows the new run, not the previous one', async ({ page }) => {
      await page.setViewportSize({ width, height });
      await page.goto(app.served.url);
      await page.getByTestId('agent-tab').click();
      await sayAndWait(page, 'start the runner');
      await page.locator('[data-testid="tool-call"][data-tool="bash"]').first().getByTestId('tool-process-link').click();

      const row = page.locator('[data-testid="process-row"][data-process-id="proc-1"]');
      const log = page.locator('[data-testid="process-log"][data-process-id="proc-1"]');
      // The runs whose lines the view shows.
      const runs = async () => [...new Set([...(await log.innerText()).matchAll(/run (\w+) (?:started|tick)/g)].map((m) => m[1]))];
      await expect(log).toContainText('tick 2');
      const [first] = await runs();
      expect(await runs()).toEqual([first]);

      await row.getByTestId('process-restart').click();
      // Only the new run's lines, from its first one.
      let second = '';
      await expect
        .poll(async () => {
          const shown = await runs();
          second = shown.length === 1 && shown[0] !== first ? shown[0] : '';
          return second;
        })
        .not.toBe('');
      await expect(log).toContainText(`run ${second} started`);
      await expect(row).toHaveAttribute('data-status', /starting|running|ready/);
      await page.screenshot({ path: path.join(SHOTS, `restarted-${width}.png`) });

      // Switching tabs and back shows the same run (it always did; the live view now agrees).
      await page.getByTestId('terminal-tab').first().click();
      await page.getByTestId('processes-tab').click();
      await expect.poll(runs).toEqual([second]);
      await row.getByTestId('process-stop').click();
      await expect(row).toHaveAttribute('data-status', 'killed');
    });
  });
}
