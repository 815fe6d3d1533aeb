// The Processes pane: a background process the agent starts appears beside the terminal tabs
// with its port as a link, its log streams into a read-only xterm, Stop ends it (the row says
// "killed"), and one that exits 1 shows a badge. The chat's card links to the row.
import { mkdir } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import type { ScriptedReply } from '../test/support/scriptedLlm';
import { sayAndWait, startAgentProject, type AgentProject } from './support/agentProject';

const SHOTS = path.resolve('test-results', 'processes');

/** A port free on this machine now (the sandbox's own namespace has it free too). */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

let app: AgentProject;
let port: number;

test.beforeAll(async () => {
  await mkdir(SHOTS, { recursive: true });
  port = await freePort();
  const server = `let n=0;require('http').createServer((q,s)=>s.end('hello '+(++n))).listen(${port},'127.0.0.1',()=>console.log('listening on ${port}'));setInterval(()=>console.log('tick '+(++n)),300)`;
  const steps: ScriptedReply[] = [
    { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'node server.js', description: 'Start the server', run_in_background: true, wait_for: { port, timeout: 20000 } }) }] },
    { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'echo going wrong; exit 1', description: 'A failing job', run_in_background: true, wait_for: { exit: true } }) }] },
    { content: 'Started.' },
  ];
  // No rule: inside the sandbox (the default where it works) a command needs no card.
  app = await startAgentProject('processes-project', { 'server.js': server }, (req) => steps[(req.body.messages ?? []).filter((m) => m.role === 'tool').length] ?? { content: 'Done.' });
});
test.afterAll(async () => {
  await app?.stop();
});

test('a background process shows in the pane with its port and live log; Stop kills it; a failed one shows a badge', async ({ page }) => {
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.goto(app.served.url);
  await page.getByTestId('agent-tab').click();
  await sayAndWait(page, 'start the server');
  const card = page.locator('[data-testid="tool-call"][data-tool="bash"]').first();
  await expect(card).toHaveAttribute('data-status', 'done');
  // The failed one was not looked at yet: the tab carries a badge.
  await expect(page.getByTestId('processes-badge')).toHaveText('1');
  await card.getByTestId('tool-process-link').click();

  const pane = page.getByTestId('processes-pane');
  const row = pane.locator('[data-testid="process-row"][data-process-id="proc-1"]');
  await expect(row).toHaveAttribute('data-status', 'ready');
  await expect(row.getByTestId('process-port')).toHaveAttribute('href', `http://127.0.0.1:${port}/`);
  await expect(page.getByTestId('processes-badge')).toHaveCount(0);
  const failed = pane.locator('[data-testid="process-row"][data-process-id="proc-2"]');
  await expect(failed).toHaveAttribute('data-status', 'exited');
  await expect(failed.getByTestId('process-status')).toHaveText('exited 1');

  // The port reaches the server from this machine (the browser's side of the forward).
  const body = await page.evaluate(async (u) => (await fetch(u)).text(), `http://127.0.0.1:${port}/`).catch(() => null);
  const reached = body ?? (await (await fetch(`http://127.0.0.1:${port}/`)).text());
  expect(reached).toMatch(/^hello \d+$/);

  // The log streams: ticks keep arriving in the read-only xterm.
  const log = page.locator('[data-testid="process-log"][data-process-id="proc-1"]');
  const ticks = async () => Number(/tick (\d+)(?![\s\S]*tick \d)/.exec(await log.innerText())?.[1] ?? 0);
  await expect.poll(ticks).toBeGreaterThan(0);
  const first = await ticks();
  await expect.poll(ticks).toBeGreaterThan(first);
  await page.screenshot({ path: path.join(SHOTS, 'pane-1920.png') });
  await page.setViewportSize({ width: 1024, height: 700 });
  await page.screenshot({ path: path.join(SHOTS, 'pane-1024.png') });

  await row.getByTestId('process-stop').click();
  await expect(row).toHaveAttribute('data-status', 'killed');
  await expect(row.getByTestId('process-status')).toHaveText('killed');
  await expect(row.getByTestId('process-port')).toHaveCount(0);
  await expect.poll(() => fetch(`http://127.0.0.1:${port}/`).then(() => 'open', () => 'closed')).toBe('closed');
  await page.screenshot({ path: path.join(SHOTS, 'pane-killed.png') });
});

test('a host no rule names is a network card; denied, the card and the settings say it was refused', async ({ page }) => {
  const steps: ScriptedReply[] = [
    { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'curl -fsS --max-time 60 http://other.test/', description: 'Fetch another host' }) }] },
    { content: 'It was refused.' },
  ];
  const net = await startAgentProject('network-card', { 'README.md': '# net\n' }, (req) => steps[(req.body.messages ?? []).filter((m) => m.role === 'tool').length] ?? { content: 'Done.' }, {
    settings: { permissions: [{ kind: 'network', pattern: 'curl *', action: 'allow', hosts: ['allowed.test'] }] },
  });
  try {
    await page.setViewportSize({ width: 1920, height: 1080 });
    await page.goto(net.served.url);
    await page.getByTestId('agent-tab').click();
    await page.getByTestId('chat-input').fill('fetch it');
    await page.getByTestId('chat-input').press('Enter');
    const card = page.locator('[data-testid="approval-card"][data-kind="network"]');
    await expect(card).toContainText('other.test:80 from curl -fsS --max-time 60 http://other.test/');
    await page.screenshot({ path: path.join(SHOTS, 'network-card.png') });
    await card.getByTestId('approval-deny').click();
    const tool = page.locator('[data-testid="tool-call"][data-tool="bash"]').last();
    await expect(tool.getByTestId('tool-call-network')).toContainText('Refused other.test');
    await page.getByTestId('settings-open').click();
    await expect(page.getByTestId('settings-network-log')).toContainText('refused other.test:80 by curl -fsS --max-time 60 http://other.test/');
    await page.screenshot({ path: path.join(SHOTS, 'network-settings.png') });
  } finally {
    await net.stop();
  }
});
