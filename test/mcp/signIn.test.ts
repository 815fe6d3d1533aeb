// A remote server's sign-in, as the app drives it: a real sign-in (discovery, dynamic
// registration, PKCE, tokens) against the SDK's authorization server, through the composition
// root. The person is played by the test browser (test/support/testBrowser.cjs): it opens the page
// the settings row links (`sign_in_url`) and follows its redirects back to Loupe. Every sign-in is
// shown and awaited, a second one for more scope in the middle of a call included. What it keeps
// goes where the API key is (docs/security.md, "The API key at rest"): the keychain when one
// answers (the stand-in keyring on the PATH), the owner-only settings file otherwise, never a file
// of the workspace.
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WorkspaceServices } from '../../src/main/workspace/compose';
import { call } from '../agent/agentHarness';
import { mcpAgent } from '../support/mcpAgent';
import { writeServers } from '../support/mcpServers';
import { startScriptedLlm } from '../support/scriptedLlm';
import { testServices } from '../support/services';
import { startSignInMcpServer, type SignInMcpServer } from '../support/signInMcpServer';
import { openPage } from '../support/testBrowser.cjs';
import { standInKeyring, type StandInKeyring } from '../support/standInKeyring';
import { tempWorkspace, type TempWorkspace, until, writeTree } from '../support/tmp';

let t: TempWorkspace;
let root: string;
let home: string;
let ring: StandInKeyring;
let remote: SignInMcpServer;
let services: WorkspaceServices | null = null;
beforeEach(async () => {
  t = await tempWorkspace('loupe-mcp-signin-');
  ({ root, home } = t);
  await writeTree(root, { 'README.md': 'hello\n', '.mcp.json': '{ "mcpServers": {} }\n' });
  ring = standInKeyring(path.join(t.dir, 'ring'));
  remote = await startSignInMcpServer();
});
afterEach(async () => {
  await services?.dispose();
  services = null;
  await remote.close();
  await t.cleanup();
});

/** Every file under `dir` whose bytes contain `needle`. */
async function filesHolding(dir: string, needle: string): Promise<string[]> {
  const found: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    const file = path.join(e.parentPath, e.name);
    if ((await readFile(file, 'latin1')).includes(needle)) found.push(path.relative(t.dir, file));
  }
  return found;
}

/** Every sign-in page the settings row has linked, in order, as it appeared. */
function shownPages(s: WorkspaceServices): string[] {
  const shown: string[] = [];
  s.mcp.onChange(() => {
    const url = s.mcp.list()[0]?.sign_in_url;
    if (url && !shown.includes(url)) shown.push(url);
  });
  return shown;
}

/** The person opens the page in the browser; it ends on Loupe's redirect page, signed in. */
async function open(url: string): Promise<void> {
  const page = await openPage(url);
  expect(page, JSON.stringify(page.visited)).toMatchObject({ status: 200, text: expect.stringContaining('Signed in') });
  expect(new URL(page.url)).toMatchObject({ hostname: '127.0.0.1', pathname: '/callback' });
}

async function signIn(env: NodeJS.ProcessEnv, settings: Record<string, unknown> = {}): Promise<string> {
  writeServers(home, { signed: { url: remote.url } }, settings);
  services = testServices(root, { configDir: home, env });
  const shown = shownPages(services);
  const synced = services.mcp.sync();
  // Shown, and waited for: nothing goes on until the person has been to the page.
  await until(() => shown[0], 20_000);
  expect(services.mcp.list()[0]).toMatchObject({ status: 'pending', detail: expect.stringContaining(shown[0]!) });
  await open(shown[0]!);
  await synced;
  await until(() => services!.mcp.list()[0]?.status === 'ready', 20_000);
  expect(services.mcp.list()[0]).toMatchObject({ name: 'signed', tools: ['whoami', 'deploy'] });
  const [token] = remote.issued();
  expect(token).toBeTruthy();
  return token!;
}

const settingsOf = async () => JSON.parse(await readFile(path.join(home, 'settings.json'), 'utf8')) as { mcp_oauth?: Record<string, Record<string, unknown>> };

describe('a remote server’s sign-in', () => {
  // compose picks the keychain by this process's platform: the Secret Service (secret-tool) on Linux.
  it.runIf(process.platform === 'linux')('goes to the keychain when one answers: the settings only say so, the workspace never holds it', async () => {
    const token = await signIn({ ...ring.env, LOUPE_KEYCHAIN: undefined });
    expect((await settingsOf()).mcp_oauth).toEqual({ [remote.url]: { store: 'keychain', rev: expect.any(String) } });
    expect(await filesHolding(path.join(t.dir, 'ring'), token)).toHaveLength(1);
    expect(await filesHolding(home, token)).toEqual([]);
    expect(await filesHolding(root, token)).toEqual([]);
    // The token travels on stdin and stdout only, never on a command line.
    expect(ring.argvLog()).not.toContain(token);
    expect(ring.argvLog()).toContain('Loupe MCP sign-in');
  }, 30_000);

  it('a second sign-in for more scope, in the middle of a call: shown on the settings row and the call’s card, awaited; then the call goes through and the server is ready', async () => {
    const llm = await startScriptedLlm();
    try {
      await signIn({ ...process.env, LOUPE_KEYCHAIN: 'off' }, { permissions: [{ kind: 'mcp', pattern: 'signed/*', action: 'allow' }] });
      const s = services!;
      const shown = shownPages(s);
      llm.enqueue({ toolCalls: [call('d1', 'mcp__signed__deploy', {})] }, { toolCalls: [call('d2', 'mcp__signed__deploy', {})] }, { content: 'deployed twice' });
      const { agent, finished, events } = mcpAgent(s, llm);
      const run = agent.run('deploy');
      // The server asked for mcp:deploy: a new page, on the settings row and on the call's card.
      const second = await until(() => shown[0], 20_000);
      expect(new URL(second).searchParams.get('scope')).toContain('mcp:deploy');
      const card = await until(() => events.find((e) => e.type === 'tool_output' && e.call_id === 'd1' && e.text.includes(second)), 20_000);
      expect(card).toMatchObject({ text: expect.stringContaining('Waiting for you to sign in to signed again') });
      // Awaited: the call waits for the person, however long they take.
      await new Promise((r) => setTimeout(r, 300));
      expect(finished.d1).toBeUndefined();
      await open(second);
      expect((await run).status).toBe('done');
      expect(finished.d1, finished.d1?.output).toMatchObject({ ok: true, output: 'deployed' });
      // Signed in with the new scope, the server is ready again and the next call asks nothing.
      expect(finished.d2, finished.d2?.output).toMatchObject({ ok: true, output: 'deployed' });
      expect(shown).toEqual([second]);
      expect(s.mcp.list()[0]).toMatchObject({ status: 'ready' });
      expect(s.mcp.list()[0]).not.toHaveProperty('sign_in_url');
      expect(remote.issued()).toHaveLength(2);
    } finally {
      await llm.close();
    }
  }, 60_000);

  it('stays in the owner-only settings file where there is no keychain, never in the workspace', async () => {
    const token = await signIn({ ...process.env, LOUPE_KEYCHAIN: 'off' });
    const saved = (await settingsOf()).mcp_oauth?.[remote.url];
    expect(saved?.tokens).toMatchObject({ access_token: token });
    expect(saved?.client).toMatchObject({ client_id: expect.any(String) });
    expect((await stat(path.join(home, 'settings.json'))).mode & 0o777).toBe(0o600);
    expect(await filesHolding(root, token)).toEqual([]);
  }, 30_000);
});
