// A remote folder in the window, all real: Debian's sshd with a user made for the test, the built
// `loupe remote ssh://… --serve`, Chromium on the URL it prints, the scripted model on this
// machine's 127.0.0.1. The agent edits and runs a command there; the link is cut under a long
// command and the window comes back to its output.
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import type { RecordedRequest, ScriptedReply } from '../test/support/scriptedLlm';
import { remoteWorld, type RemoteWorld } from '../test/support/remoteWorld';
import { until } from '../test/support/tmp';

const SHOTS = path.resolve('test-results', 'remote');

function byStep(steps: ScriptedReply[]): (req: RecordedRequest) => ScriptedReply {
  return (req) => steps[Math.min((req.body.messages ?? []).filter((m) => m.role === 'tool').length, steps.length - 1)];
}

let world: RemoteWorld | null = null;
test.afterEach(async () => {
  await world?.stop();
  world = null;
});

async function openWindow(page: Page, url: string, name: string) {
  await page.goto(url);
  await expect(page.getByTestId('workspace-root')).toContainText(name);
  await expect(page.getByTestId('remote-status')).toHaveAttribute('data-state', 'connected');
  await page.getByTestId('agent-tab').click();
  await expect(page.getByTestId('chat-input')).toBeVisible();
}

test('the agent edits and runs a command on the remote; the edit is in the timeline, the window says where it is', async ({ page }) => {
  world = await remoteWorld({
    name: 'remote-app',
    script: byStep([
      { toolCalls: [{ name: 'write_file', arguments: JSON.stringify({ path: 'notes.txt', content: 'written there\n' }) }] },
      { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'echo "ran as $(whoami)" | tee who.txt', description: 'who runs it' }) }] },
      { content: 'Wrote the notes and ran the command there.' },
    ]),
  });
  const w = world;
  const served = await w.serve();
  await page.setViewportSize({ width: 1024, height: 700 });
  await openWindow(page, served.url, 'remote-app');
  await expect(page.getByTestId('remote-status')).toContainText(`SSH: ${w.sshd.alias}`);
  await expect(page).toHaveTitle(new RegExp(`remote-app — SSH: ${w.sshd.alias} — Loupe`));

  await page.getByTestId('chat-input').fill('write notes, then run whoami');
  await page.getByTestId('chat-input').press('Enter');
  const bash = page.locator('[data-testid="tool-call"][data-tool="bash"]');
  await expect(bash).toHaveAttribute('data-status', 'done', { timeout: 60_000 });
  await expect(bash.getByTestId('tool-call-output')).toContainText(`ran as ${w.sshd.user}`);
  await expect(page.locator('[data-testid="chat-message"][data-role="assistant"]').last()).toContainText('ran the command there');
  await page.screenshot({ path: path.join(SHOTS, 'remote-1024.png') });

  // Both happened there, as its user; the edit is a modification of that folder's log.
  expect(w.sshd.asUser(`cat ${w.project}/notes.txt`)).toBe('written there\n');
  expect(w.sshd.asUser(`cat ${w.project}/who.txt`)).toBe(`ran as ${w.sshd.user}\n`);
  await page.getByTestId('review-tab').click();
  await expect(page.locator('[data-testid="timeline-entry"]').filter({ hasText: 'notes.txt' })).toHaveCount(1);
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.screenshot({ path: path.join(SHOTS, 'remote-timeline-1920.png') });
  await served.stop();
});

test('the link drops during a long command: the window says so, comes back, and shows the output and the answer', async ({ page }) => {
  world = await remoteWorld({
    name: 'remote-long',
    script: byStep([
      { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'echo started > started.txt; while [ ! -f go.txt ]; do sleep 0.1; done; echo "built as $(whoami)" | tee built.txt', description: 'a long build', timeout: 120000 }) }] },
      { content: 'The long build finished.' },
    ]),
  });
  const w = world;
  const served = await w.serve();
  await page.setViewportSize({ width: 1024, height: 700 });
  await openWindow(page, served.url, 'remote-long');
  await page.getByTestId('chat-input').fill('run the long build');
  await page.getByTestId('chat-input').press('Enter');
  await until(() => w.sshd.asUser(`test -f ${w.project}/started.txt && echo y || true`).trim() === 'y', 60_000, 200);
  const master = w.masterPid();
  expect(master).not.toBeNull();
  w.sshd.pause();
  process.kill(master!, 'SIGKILL');
  await expect(page.getByTestId('remote-status')).toHaveAttribute('data-state', /reconnecting|lost/);
  await expect(page.getByTestId('connection-banner')).toContainText('keep running there');
  await page.screenshot({ path: path.join(SHOTS, 'remote-reconnecting-1024.png') });
  // The command finishes there while the window cannot reach it (it waits for this file).
  w.sshd.asUser(`touch ${w.project}/go.txt`);
  await until(() => w.sshd.asUser(`test -f ${w.project}/built.txt && echo y || true`).trim() === 'y', 60_000, 200);
  w.sshd.resume();
  await expect(page.getByTestId('remote-status')).toHaveAttribute('data-state', 'connected', { timeout: 60_000 });
  const bash = page.locator('[data-testid="tool-call"][data-tool="bash"]');
  await expect(bash).toHaveAttribute('data-status', 'done');
  await expect(bash.getByTestId('tool-call-output')).toContainText(`built as ${w.sshd.user}`);
  await expect(page.locator('[data-testid="chat-message"][data-role="assistant"]').last()).toContainText('The long build finished.');
  await expect(page.getByTestId('connection-banner')).toHaveCount(0);
  await expect(page.locator('[data-testid="tool-call"]')).toHaveCount(1);
  await served.stop();
});

test('Open Remote Folder lists the ssh config\u2019s hosts and opens a folder there in this tab', async ({ page }) => {
  world = await remoteWorld({ name: 'picked', script: [{ content: 'hi' }] });
  const w = world;
  const local = await w.serveLocal(w.home);
  try {
    await page.setViewportSize({ width: 1024, height: 700 });
    await page.goto(local.url);
    await expect(page.getByTestId('workspace-root')).toBeVisible();
    await expect(page.getByTestId('remote-status')).toHaveCount(0);
    await page.getByTestId('open-remote').click();
    const host = page.locator(`[data-testid="remote-host"][data-host="${w.sshd.alias}"]`);
    await expect(host).toContainText(`${w.sshd.user}@127.0.0.1:${w.sshd.port}`);
    await host.click();
    await expect(page.getByTestId('remote-host-input')).toHaveValue(w.sshd.alias);
    await page.getByTestId('remote-path-input').fill('~/picked');
    await page.screenshot({ path: path.join(SHOTS, 'open-remote-1024.png') });
    await page.getByTestId('remote-open-submit').click();
    await expect(page.getByTestId('remote-opening')).toBeVisible();
    // The tab goes to the remote folder's window.
    await expect(page.getByTestId('remote-status')).toHaveAttribute('data-state', 'connected', { timeout: 120_000 });
    await expect(page.getByTestId('workspace-root')).toContainText('picked');
    expect(new URL(page.url()).port).not.toBe(new URL(local.url).port);
    // Opened before: offered next time.
    await page.getByTestId('open-remote').click();
    await expect(page.locator('[data-testid="remote-recent"]')).toHaveAttribute('data-target', `ssh://${w.sshd.alias}/~/picked`);
    await page.setViewportSize({ width: 1920, height: 1080 });
    await page.screenshot({ path: path.join(SHOTS, 'open-remote-recent-1920.png') });
  } finally {
    await local.stop();
  }
});
