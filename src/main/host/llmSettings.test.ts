// One API key for every Loupe process: saved in the desktop app, used by `loupe serve` and
// `loupe run`. Real settings files, a real scripted model server, stand-in keyring tools.
import { readFile, stat, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedLlm, type ScriptedLlm } from '../../../test/support/scriptedLlm';
import { standInKeyring, type StandInKeyring } from '../../../test/support/standInKeyring';
import { tempDir, writeTree } from '../../../test/support/tmp';
import { runLlmConfig } from '../cli/run';
import { keyAccount, SecretServiceKeyring, systemKeys, type KeyStore } from '../services/settings/keyStore';
import { Host, type HostOptions } from './host';
import { LEGACY_SEALED_KEY_PROBLEM } from './llmSettings';

let dir: string;
let config: string;
let cleanup: () => Promise<void>;
let llm: ScriptedLlm;
let ring: StandInKeyring;
const hosts: Host[] = [];
const ENV = ['OPENAI_BASE_URL', 'OPENAI_API_KEY', 'LOUPE_MODEL', 'LOUPE_CONTEXT_TOKENS'];
const savedEnv: Record<string, string | undefined> = {};

beforeEach(async () => {
  for (const k of ENV) {
    savedEnv[k] = process.env[k];
    delete process.env[k];
  }
  ({ dir, cleanup } = await tempDir('loupe-key-'));
  config = path.join(dir, 'config');
  ring = standInKeyring(dir);
  llm = await startScriptedLlm();
  await writeTree(path.join(dir, 'ws'), { 'a.txt': 'a\n' });
});
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.dispose();
  await llm.close();
  await cleanup();
  for (const k of ENV) if (savedEnv[k] === undefined) delete process.env[k];
  else process.env[k] = savedEnv[k];
});

const keyring = (env = ring.env): KeyStore => new SecretServiceKeyring(keyAccount(config), ring.secretTool, env);

async function open(opts: Omit<HostOptions, 'configDir'>): Promise<Host> {
  const h = new Host({ configDir: config, ...opts });
  hosts.push(h);
  await h.open(path.join(dir, 'ws'));
  return h;
}

/** The Authorization header the model server saw on a connection test. */
async function keyUsedBy(h: Host): Promise<string | undefined> {
  await h.handle('settings.test', undefined);
  return llm.requests.at(-1)?.headers.authorization;
}

const settingsFile = async () => JSON.parse(await readFile(path.join(config, 'settings.json'), 'utf8')) as { llm: Record<string, unknown> };
const noNote = () => undefined;

describe('the API key saved in the desktop app', () => {
  it('lives in the OS keychain and is used by loupe serve and loupe run', async () => {
    const app = await open({ transport: 'electron', keys: { keyStore: keyring(), unsealLegacy: async () => 'never' } });
    await app.handle('settings.save', { base_url: llm.baseURL, model: 'scripted', api_key: 'sk-from-the-app' });
    const onDisk = await settingsFile();
    expect(JSON.stringify(onDisk)).not.toContain('sk-from-the-app');
    expect(onDisk.llm.api_key_store).toBe('keychain');
    expect((await app.handle('settings.get', undefined)).api_key_where).toMatch(/Secret Service/);

    const serve = await open({ transport: 'websocket', keys: { keyStore: keyring() } });
    const view = await serve.handle('settings.get', undefined);
    expect(view).toMatchObject({ has_api_key: true, api_key_where: expect.stringMatching(/keyring/) });
    expect(await keyUsedBy(serve)).toBe('Bearer sk-from-the-app');

    expect(await runLlmConfig(config, {}, noNote, keyring())).toMatchObject({ apiKey: 'sk-from-the-app', model: 'scripted', baseURL: llm.baseURL });
    // The environment still overrides, field by field.
    expect(await runLlmConfig(config, { OPENAI_API_KEY: 'sk-env', LOUPE_MODEL: 'm2' }, noNote, keyring())).toMatchObject({ apiKey: 'sk-env', model: 'm2', baseURL: llm.baseURL });

    // Clearing it in one process clears it for all.
    await serve.handle('settings.save', { base_url: llm.baseURL, model: 'scripted', api_key: '' });
    expect((await app.handle('settings.get', undefined)).has_api_key).toBe(false);
    expect(await keyring().get()).toBeUndefined();
  });

  it('without a keychain stays in the owner-only settings file, and says so', async () => {
    const app = await open({ transport: 'electron', keys: systemKeys(config, 'linux', { PATH: path.join(dir, 'no-such-dir') }) });
    await app.handle('settings.save', { base_url: llm.baseURL, model: 'scripted', api_key: 'sk-plain' });
    const file = path.join(config, 'settings.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await settingsFile()).llm.api_key).toBe('sk-plain');
    const where = (await app.handle('settings.get', undefined)).api_key_where;
    expect(where).toContain(file);
    expect(where).toMatch(/plain text readable only by your user account.*secret-tool/);

    const serve = await open({ transport: 'websocket' });
    expect(await keyUsedBy(serve)).toBe('Bearer sk-plain');
    expect(await runLlmConfig(config, {}, noNote, null)).toMatchObject({ apiKey: 'sk-plain' });
  });

  it('falls back to the file when the keyring refuses, and says where the key went', async () => {
    const locked = keyring({ ...ring.env, STANDIN_KEYRING_LOCKED: '1' });
    const app = await open({ transport: 'electron', keys: { keyStore: locked } });
    await app.handle('settings.save', { base_url: llm.baseURL, model: 'scripted', api_key: 'sk-fallback' });
    expect((await settingsFile()).llm).toMatchObject({ api_key: 'sk-fallback' });
    expect((await app.handle('settings.get', undefined)).api_key_where).toContain('settings.json');
  });

  it('an earlier app sealed it with safeStorage: the app moves it to the keychain, the CLI says what to do', async () => {
    await mkdir(config, { recursive: true });
    const sealed = Buffer.from('sealed:sk-old').toString('base64');
    await writeFile(path.join(config, 'settings.json'), JSON.stringify({ llm: { base_url: llm.baseURL, model: 'scripted', api_key_enc: sealed } }));

    const notes: string[] = [];
    expect(await runLlmConfig(config, {}, (s) => notes.push(s), keyring())).toMatchObject({ apiKey: 'no-key' });
    expect(notes.join('\n')).toContain(LEGACY_SEALED_KEY_PROBLEM);
    const serve = await open({ transport: 'websocket', keys: { keyStore: keyring() } });
    expect(await serve.handle('settings.get', undefined)).toMatchObject({ has_api_key: false, api_key_problem: LEGACY_SEALED_KEY_PROBLEM });

    const unsealLegacy = async (s: string) => Buffer.from(s, 'base64').toString().replace(/^sealed:/, '');
    const app = await open({ transport: 'electron', keys: { keyStore: keyring(), unsealLegacy } });
    expect(await keyUsedBy(app)).toBe('Bearer sk-old');
    expect((await settingsFile()).llm).toEqual({ base_url: llm.baseURL, model: 'scripted', api_key_store: 'keychain' });
    expect(await keyUsedBy(serve)).toBe('Bearer sk-old');
  });
});
