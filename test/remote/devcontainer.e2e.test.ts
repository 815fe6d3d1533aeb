// A dev container as the remote machine, all real: an image built from Debian's packages
// (devcontainerImage.ts), the reference `devcontainer` CLI with Podman, the built
// `loupe remote devcontainer://… --serve`, the window's own client, the scripted model on this
// machine's 127.0.0.1. The person's SSH agent runs here, with a key: none of it may reach the
// container.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatEvent } from '../../src/shared/contract';
import { devcontainerImage, removeContainersOf, TEST_USER } from '../support/devcontainerImage';
import { serveRemote, windowClient, type ServedRemote } from '../support/remoteWorld';
import { startScriptedLlm, type RecordedRequest, type ScriptedLlm, type ScriptedReply } from '../support/scriptedLlm';
import { tempDir, until } from '../support/tmp';

function byStep(steps: ScriptedReply[]): (req: RecordedRequest) => ScriptedReply {
  return (req) => steps[Math.min((req.body.messages ?? []).filter((m) => m.role === 'tool').length, steps.length - 1)];
}

const portFree = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });

let dir: string;
let cleanup: () => Promise<void>;
let project: string;
let bare: string;
let late: string;
let image: string;
let llm: ScriptedLlm;
let agent: ChildProcess | null = null;
let served: ServedRemote | null = null;
let env: NodeJS.ProcessEnv;
const KEY_MARK = 'loupe-test-key-in-the-agent';

/** A folder whose devcontainer.json uses the test image, with `runArgs` added to the fixed ulimits. */
async function writeDevcontainer(folder: string, image: string, runArgs: string[]): Promise<void> {
  await mkdir(path.join(folder, '.devcontainer'), { recursive: true });
  await writeFile(
    path.join(folder, '.devcontainer', 'devcontainer.json'),
    [
      '{',
      '  // The test image, made from Debian packages; no registry.',
      `  "image": "${image}",`,
      '  "forwardPorts": [3000],',
      '  // The image\u2019s user, as containerUser: with remoteUser the CLI asks rootful Podman for',
      '  // --userns=keep-id, which only rootless Podman has.',
      `  "containerUser": "${TEST_USER}",`,
      '  // This machine\u2019s runc cannot raise limits past its own: fixed ones. The sandbox needs a /proc it may mount.',
      `  "runArgs": ${JSON.stringify(['--ulimit', 'nofile=4096:4096', '--ulimit', 'nproc=4096:4096', ...runArgs])},`,
      '}',
      '',
    ].join('\n'),
  );
}

beforeAll(async () => {
  image = await devcontainerImage();
  ({ dir, cleanup } = await tempDir('loupe-devcontainer-'));
  project = path.join(dir, 'app');
  bare = path.join(dir, 'bare');
  await writeDevcontainer(project, image, ['--security-opt', 'systempaths=unconfined']);
  await writeDevcontainer(bare, image, []);
  await writeFile(path.join(project, 'hello.txt'), 'served from the container\n');
  // The person's folder is theirs: the image's user has their uid (the CLI matches it to a
  // non-root owner; this machine's tests run as root, so the folders are given to uid 1000).
  execFileSync('chown', ['-R', '1000:1000', project, bare]);
  llm = await startScriptedLlm(
    byStep([
      { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'echo "agent:${SSH_AUTH_SOCK:-none}"; ls -a ~/.ssh 2>&1 | head -1; find / -xdev \\( -name "id_ed25519*" -o -type s \\) 2>/dev/null | grep -v "\\.loupe-server" || true', description: 'what credentials are here' }) }] },
      { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'busybox httpd -f -p 127.0.0.1:3000 -h .', description: 'serve the folder', run_in_background: true, wait_for: { port: 3000, timeout: 60000 } }) }] },
      { content: 'Serving on 3000.' },
    ]),
  );
  const home = path.join(dir, 'home');
  const loupeHome = path.join(dir, 'loupe');
  await mkdir(path.join(home, '.ssh'), { recursive: true, mode: 0o700 });
  await mkdir(loupeHome, { recursive: true });
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', KEY_MARK, '-f', path.join(home, '.ssh', 'id_ed25519')]);
  const agentSock = path.join(dir, 'agent.sock');
  agent = spawn('ssh-agent', ['-D', '-a', agentSock], { stdio: 'ignore' });
  await until(async () => (await readFile(agentSock).then(() => true, (e: NodeJS.ErrnoException) => e.code !== 'ENOENT')) || null, 10_000);
  execFileSync('ssh-add', [path.join(home, '.ssh', 'id_ed25519')], { env: { ...process.env, SSH_AUTH_SOCK: agentSock }, stdio: 'ignore' });
  await writeFile(path.join(loupeHome, 'settings.json'), JSON.stringify({ llm: { base_url: llm.baseURL, model: 'scripted', api_key: 'sk-container-key' } }));
  env = { ...process.env, LOUPE_HOME: loupeHome, HOME: home, LOUPE_KEYCHAIN: 'off', LOUPE_LSP: 'off', SSH_AUTH_SOCK: agentSock };
  delete env.OPENAI_BASE_URL;
  delete env.OPENAI_API_KEY;
  delete env.LOUPE_MODEL;
}, 20 * 60_000);

afterAll(async () => {
  await served?.stop();
  if (project) removeContainersOf(project);
  if (bare) removeContainersOf(bare);
  if (late) removeContainersOf(late);
  agent?.kill();
  await llm?.close();
  if (dir) execFileSync('rm', ['-rf', dir]);
  await cleanup?.();
});

describe('a dev container as the remote machine', () => {
  it('runs the agent inside; its server on port 3000 is this machine\u2019s 127.0.0.1:3000; no SSH agent or key goes in', async () => {
    const free3000 = await portFree(3000);
    served = await serveRemote(`devcontainer://${project}`, env);
    const client = windowClient(served.url);
    const status = await until(async () => {
      const s = await client.request('remote.status', undefined);
      return s?.state === 'connected' && s.sandbox ? s : null;
    }, 60_000);
    expect(status).toMatchObject({ kind: 'devcontainer', path: '/workspaces/app', sandbox: { active: true } });
    expect((await client.request('workspace.current', undefined))?.root).toBe('/workspaces/app');

    const events: ChatEvent[] = [];
    client.on('chat.event', ({ event }) => events.push(event));
    await client.request('chat.send', { text: 'show the credentials here, then serve the folder on 3000' });
    await until(() => events.some((e) => e.type === 'request_finished'), 180_000);
    const outputs = events.filter((e) => e.type === 'tool_call_finished').map((e) => JSON.stringify(e));
    // No agent socket, no ~/.ssh, no key file and no socket but Loupe's own inside.
    expect(outputs[0]).toContain('agent:none');
    expect(outputs[0]).toMatch(/No such file or directory/);
    expect(outputs[0]).not.toMatch(/id_ed25519|agent\.sock|\.sock/);

    // forwardPorts: 3000 there is 3000 here (another port only when 3000 is taken here).
    const mapped = await until(async () => (await client.request('remote.status', undefined))?.ports.find((p) => p.remote_port === 3000), 30_000);
    if (free3000) expect(mapped.local_port).toBe(3000);
    const res = await fetch(`http://127.0.0.1:${mapped.local_port}/hello.txt`);
    expect(await res.text()).toBe('served from the container\n');

    // Loupe's host inside runs without the person's agent either.
    const id = execFileSync('podman', ['ps', '-q', '--filter', `label=devcontainer.local_folder=${project}`], { encoding: 'utf8' }).trim();
    const hostEnv = execFileSync('podman', ['exec', id, 'sh', '-c', 'for p in /proc/[0-9]*; do tr "\\0" "\\n" < $p/environ 2>/dev/null; done'], { encoding: 'utf8' });
    expect(hostEnv).not.toMatch(/^SSH_AUTH_SOCK=/m);
    expect(hostEnv).not.toContain('sk-container-key');
    expect(execFileSync('podman', ['exec', id, 'sh', '-c', 'grep -rl sk-container-key / --exclude-dir=proc --exclude-dir=sys 2>/dev/null || true'], { encoding: 'utf8' }).trim()).toBe('');
  }, 20 * 60_000);

  it('a container start the CLI did not hear (its events listener came late) is waited out: up runs again and the window opens', async () => {
    late = path.join(dir, 'late');
    await writeDevcontainer(late, image, []);
    execFileSync('chown', ['-R', '1000:1000', late]);
    // Podman as a busy machine runs it: the CLI's listener for the start event begins after the
    // container has started, so the event goes by unheard.
    const bin = path.join(dir, 'late-bin');
    await mkdir(bin, { recursive: true });
    const podman = execFileSync('sh', ['-c', 'command -v podman'], { encoding: 'utf8' }).trim();
    await writeFile(path.join(bin, 'podman'), `#!/bin/sh\nif [ "$1" = events ]; then sleep 20; fi\nexec ${podman} "$@"\n`, { mode: 0o755 });
    const s = await serveRemote(`devcontainer://${late}`, { ...env, PATH: `${bin}:${env.PATH}` });
    try {
      expect(s.stderr()).toContain('did not hear its container start');
      const client = windowClient(s.url);
      const status = await until(async () => {
        const st = await client.request('remote.status', undefined);
        return st?.state === 'connected' ? st : null;
      }, 60_000);
      expect(status).toMatchObject({ kind: 'devcontainer', path: '/workspaces/late' });
      // One container for the folder: the second `up` took the one the first had started.
      expect(execFileSync('podman', ['ps', '-aq', '--filter', `label=devcontainer.local_folder=${late}`], { encoding: 'utf8' }).trim().split('\n')).toHaveLength(1);
    } finally {
      await s.stop();
    }
  }, 20 * 60_000);

  it('a container without the run options bwrap needs says the sandbox is off, why, and what to add', async () => {
    const plain = await serveRemote(`devcontainer://${bare}`, env);
    try {
      const client = windowClient(plain.url);
      const status = await until(async () => {
        const s = await client.request('remote.status', undefined);
        return s?.state === 'connected' && s.sandbox ? s : null;
      }, 60_000);
      expect(status.sandbox?.active).toBe(false);
      expect(status.sandbox?.reason).toContain('systempaths=unconfined');
    } finally {
      await plain.stop();
    }
  }, 20 * 60_000);
});
