// A network card answered "always" with an edited command pattern saves a rule that still names
// only the host asked about: editing the pattern must not turn it into "any host".
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedLlm, type ScriptedLlm } from '../../../test/support/scriptedLlm';
import { tempDir, until, writeTree } from '../../../test/support/tmp';
import { writeUserSettings } from '../../../test/support/userSettings';
import { probeSandbox } from '../services/sandbox/probe';
import { Host } from './host';

const sandbox = await probeSandbox();
const d = sandbox.available && sandbox.kind === 'bwrap' ? describe : describe.skip;

let t: { dir: string; cleanup: () => Promise<void> };
let host: Host;
let llm: ScriptedLlm;

beforeEach(async () => {
  t = await tempDir();
  llm = await startScriptedLlm();
  writeUserSettings(path.join(t.dir, 'config'), { permissions: [{ kind: 'network', pattern: 'curl *', action: 'allow', hosts: ['allowed.test'] }] });
  host = new Host({ transport: 'websocket', configDir: path.join(t.dir, 'config') });
  await writeTree(path.join(t.dir, 'ws'), { 'a.txt': 'a\n' });
  await host.open(path.join(t.dir, 'ws'));
  await host.handle('settings.save', { base_url: llm.baseURL, model: 'scripted' });
});
afterEach(async () => {
  await host.dispose();
  await llm.close();
  await t.cleanup();
});

d('network cards', () => {
  it('"always" with an edited pattern keeps the host', async () => {
    llm.enqueue({ toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'curl -fsS --max-time 5 http://other.test/', description: 'fetch' }) }] }, { content: 'done' });
    await host.handle('chat.send', { text: 'fetch it' });
    const card = await until(async () => (await host.handle('approvals.list', undefined)).find((a) => a.kind === 'network'), 20_000);
    expect(card.summary).toBe('other.test:80 from curl -fsS --max-time 5 http://other.test/');
    expect(card.always).toEqual([{ kind: 'network', pattern: 'curl *', action: 'allow', hosts: ['other.test'] }]);
    await host.handle('approvals.answer', { id: card.id, answer: 'always', patterns: ['curl -fsS *'] });
    const saved = JSON.parse(await readFile(path.join(t.dir, 'ws', '.loupe', 'config.json'), 'utf8'));
    expect(saved.permissions).toEqual([{ kind: 'network', pattern: 'curl -fsS *', action: 'allow', hosts: ['other.test'] }]);
  });
});
