// The sandbox in the UI: the settings say whether commands run sandboxed (and why not), and a
// command's approval card carries data-sandboxed when the sandbox decides where it runs.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { type RecordedRequest, type ScriptedReply } from '../test/support/scriptedLlm';
import { startAgentProject, type AgentProject } from './support/agentProject';

let agent: AgentProject;
const SHOTS = path.resolve('test-results', 'sandbox');

function script(req: RecordedRequest): ScriptedReply {
  const last = (req.body.messages ?? []).at(-1);
  if (last?.role !== 'tool') return { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'echo sandbox-e2e', description: 'Print' }) }] };
  return { content: 'The command ran.' };
}

test.beforeAll(async () => {
  // An ask rule keeps asking even inside the sandbox, so a card appears either way.
  agent = await startAgentProject('sandbox-project', { '.loupe/config.json': JSON.stringify({ sandbox: 'auto', permissions: [{ kind: 'bash', pattern: 'echo *', action: 'ask' }] }) }, script);
  await mkdir(SHOTS, { recursive: true });
});
test.afterAll(async () => {
  await agent?.stop();
});

test('settings show the sandbox status; the bash card carries data-sandboxed when it is on', async ({ page }) => {
  await page.goto(agent.served.url);
  await expect(page.getByTestId('workspace-root')).toContainText('sandbox-project');
  await page.getByTestId('agent-tab').click();
  await page.getByTestId('settings-open').click();
  const status = page.getByTestId('settings-sandbox');
  await expect(status).toContainText('Command sandbox:');
  const active = (await status.getAttribute('data-active')) === 'true';
  await page.getByTestId('settings-dialog').screenshot({ path: path.join(SHOTS, 'settings-sandbox.png') });
  if (!active) console.log(`sandbox e2e: no sandbox here (${await status.innerText()}), so the card must carry no data-sandboxed`);
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('settings-dialog')).toHaveCount(0);

  await page.getByTestId('chat-input').fill('run it');
  await page.getByTestId('chat-input').press('Enter');
  const card = page.locator('[data-testid="approval-card"][data-kind="bash"]');
  await expect(card).toContainText('echo sandbox-e2e');
  if (active) {
    await expect(card).toHaveAttribute('data-sandboxed', 'true');
    await expect(card).toContainText('runs inside the sandbox');
  } else {
    await expect(card).not.toHaveAttribute('data-sandboxed', /.*/);
  }
  await page.screenshot({ path: path.join(SHOTS, 'bash-card.png') });
  await card.getByTestId('approval-allow-once').click();
  const tool = page.locator('[data-testid="tool-call"][data-tool="bash"]').last();
  await expect(tool).toHaveAttribute('data-status', 'done');
  await page.screenshot({ path: path.join(SHOTS, 'bash-done.png') });
});

test('by default a command runs sandboxed with no card; a blocked write says so; the retry outside asks on a card that says so', async ({ page }) => {
  const outside = await realpath(await mkdtemp('/var/tmp/loupe-e2e-outside-'));
  const target = path.join(outside, 'x.txt');
  const steps: ScriptedReply[] = [
    { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'echo inside > made.txt', description: 'Write in the workspace' }) }] },
    { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: `echo x > ${target}`, description: 'Write outside' }) }] },
    { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: `echo x > ${target}`, description: 'Write outside, outside the sandbox', sandbox: false }) }] },
    { content: 'Done.' },
  ];
  const app = await startAgentProject('sandbox-default', { 'README.md': '# demo\n' }, (req) => steps[(req.body.messages ?? []).filter((m) => m.role === 'tool').length]!);
  try {
    await page.goto(app.served.url);
    await page.getByTestId('agent-tab').click();
    await page.getByTestId('chat-input').fill('try it');
    await page.getByTestId('chat-input').press('Enter');
    const tools = page.locator('[data-testid="tool-call"][data-tool="bash"]');
    // The first two ran without a card: inside the sandbox. A bound for a busy machine, not a
    // budget: beside a second Playwright worker the two commands took longer than 10 s.
    await expect(tools.nth(1)).toHaveAttribute('data-status', 'error', { timeout: 60_000 });
    await expect(tools.nth(0).getByTestId('tool-call-sandbox')).toHaveAttribute('data-sandboxed', 'true');
    await expect(tools.nth(0)).toHaveAttribute('data-status', 'done');
    expect(await readFile(path.join(app.project, 'made.txt'), 'utf8')).toBe('inside\n');
    await expect(tools.nth(1).getByTestId('tool-call-blocked')).toContainText(`Blocked by the sandbox: write to ${target}`);
    await expect(tools.nth(1).getByTestId('tool-call-error')).toHaveCount(0); // said once, not twice
    expect(existsSync(target)).toBe(false);
    // The retry outside: the only card, and it says where it runs.
    const card = page.getByTestId('approval-card');
    await expect(card).toHaveCount(1);
    await expect(card).toHaveAttribute('data-sandboxed', 'false');
    await expect(card).toContainText('runs OUTSIDE the sandbox');
    await page.screenshot({ path: path.join(SHOTS, 'blocked-and-outside-card.png') });
    await card.getByTestId('approval-allow-once').click();
    await expect(tools.nth(2)).toHaveAttribute('data-status', 'done');
    await expect(tools.nth(2).getByTestId('tool-call-sandbox')).toHaveAttribute('data-sandboxed', 'false');
    expect(await readFile(target, 'utf8')).toBe('x\n');
    await page.screenshot({ path: path.join(SHOTS, 'outside-done.png') });
  } finally {
    await app.stop();
    await rm(outside, { recursive: true, force: true });
  }
});

test("a port of this machine a rule names is reached; another is refused on the card with the rule that would allow it", async ({ page }) => {
  const servers = await Promise.all(
    ['db', 'cache'].map(
      (name) =>
        new Promise<net.Server>((resolve) => {
          const srv = net.createServer((c) => c.on('data', () => c.end(`${name} says hi\n`)).on('error', () => c.destroy()));
          srv.listen(0, '127.0.0.1', () => resolve(srv));
        }),
    ),
  );
  const [db, cache] = servers.map((x) => (x.address() as AddressInfo).port) as [number, number];
  const client = (port: number) => `node -e "const s=require('net').connect(${port},'127.0.0.1',()=>s.write('hi\\n'));s.on('data',d=>{console.log(String(d).trim());s.end()});s.on('error',e=>{console.error(e.message);process.exit(1)})"`;
  const steps: ScriptedReply[] = [
    { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: client(db), description: 'Ask the database' }) }] },
    { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: client(cache), description: 'Ask the cache' }) }] },
    { content: 'Done.' },
  ];
  // The person's own settings name the database's port for node (a repository's rule would wait for trust).
  const settings = { permissions: [{ kind: 'network', pattern: 'node *', action: 'allow', hosts: [`127.0.0.1:${db}`] }] };
  const app = await startAgentProject('sandbox-host-port', { 'README.md': '# demo\n' }, (req) => steps[(req.body.messages ?? []).filter((m) => m.role === 'tool').length]!, { settings });
  try {
    await page.setViewportSize({ width: 1024, height: 700 });
    await page.goto(app.served.url);
    await page.getByTestId('agent-tab').click();
    await page.getByTestId('chat-input').fill('ask both');
    await page.getByTestId('chat-input').press('Enter');
    const tools = page.locator('[data-testid="tool-call"][data-tool="bash"]');
    await expect(tools.nth(1)).toHaveAttribute('data-status', 'error', { timeout: 60_000 });
    await expect(tools.nth(0)).toHaveAttribute('data-status', 'done');
    await expect(tools.nth(0).getByTestId('tool-call-network')).toContainText(`Reached: 127.0.0.1:${db}`);
    await expect(tools.nth(1).getByTestId('tool-call-network')).toContainText(`Refused 127.0.0.1:${cache}: this machine's 127.0.0.1:${cache} is outside the sandbox`);
    await expect(tools.nth(1).getByTestId('tool-call-network')).toContainText(`"hosts":["127.0.0.1:${cache}"]`);
    await expect(tools.nth(1).getByTestId('tool-call-blocked')).toContainText(`Blocked by the sandbox: network access to 127.0.0.1:${cache}`);
    await page.screenshot({ path: path.join(SHOTS, 'host-port-1024.png') });
    await page.setViewportSize({ width: 1920, height: 1080 });
    await page.screenshot({ path: path.join(SHOTS, 'host-port-1920.png') });
  } finally {
    await app.stop();
    for (const x of servers) x.close();
  }
});
