// The rewind's worst case, end to end through the host: the agent (a scripted model) runs
// `rm -rf src/` inside the OS sandbox under a rule that allows it, and "Undo changes from here"
// on that request brings every file back byte for byte — tracked, untracked, binary and
// executable — after a preview that lists them, changing nothing until confirmed.
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { ChatEvent, HostEvents } from '../src/shared/contract';
import { Host } from '../src/main/host/host';
import { trustCurrentConfig } from '../src/main/services/permissions/trust';
import { UserSettings } from '../src/main/services/settings/userSettings';
import type { WorkTreeSnapshots } from '../src/main/services/snapshots/workTreeSnapshots';
import type { WorkspaceServices } from '../src/main/workspace/compose';
import { startScriptedLlm, type ScriptedLlm } from './support/scriptedLlm';
import { git, tempDir, until } from './support/tmp';

let dir: string;
let cleanup: () => Promise<void>;
let host: Host;
let llm: ScriptedLlm;
let events: ChatEvent[];
const ENV = ['OPENAI_BASE_URL', 'OPENAI_API_KEY', 'LOUPE_MODEL'];
const saved: Record<string, string | undefined> = {};

async function snapshot(root: string, rel = ''): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(path.join(root, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (r === '.git' || r === '.loupe') continue;
    if (e.isDirectory()) Object.assign(out, await snapshot(root, r));
    else out[r] = `${((await stat(path.join(root, r))).mode & 0o777).toString(8)}:${(await readFile(path.join(root, r))).toString('base64')}`;
  }
  return out;
}

beforeEach(async () => {
  for (const k of ENV) {
    saved[k] = process.env[k];
    delete process.env[k];
  }
  ({ dir, cleanup } = await tempDir());
  const root = path.join(dir, 'ws');
  await mkdir(path.join(root, 'src', 'lib', 'deep'), { recursive: true });
  await mkdir(path.join(root, '.loupe'), { recursive: true });
  await writeFile(path.join(root, '.loupe', 'config.json'), JSON.stringify({ permissions: [{ kind: 'bash', pattern: 'rm -rf src*', action: 'allow' }] }));
  for (let i = 0; i < 30; i++) await writeFile(path.join(root, 'src', 'lib', `m${i}.ts`), `export const m${i} = ${i};\n`);
  await writeFile(path.join(root, 'src', 'main.ts'), 'import { m1 } from "./lib/m1";\r\nconsole.log(m1);\r\n');
  await writeFile(path.join(root, 'src', 'run.sh'), '#!/bin/sh\necho run\n');
  await chmod(path.join(root, 'src', 'run.sh'), 0o755);
  await writeFile(path.join(root, 'README.md'), '# kept\n');
  git(root, 'init', '-q');
  git(root, 'add', '-A');
  git(root, 'commit', '-qm', 'seed');
  // Untracked, some binary, some deep: never committed, so only Loupe's record can bring them back.
  await writeFile(path.join(root, 'src', 'lib', 'deep', 'notes.txt'), 'untracked notes\n');
  await writeFile(path.join(root, 'src', 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 13, 255, 0, 7]));
  await writeFile(path.join(root, 'src', 'empty.txt'), '');
  const configDir = path.join(dir, 'config');
  await trustCurrentConfig(root, new UserSettings(configDir));
  llm = await startScriptedLlm([
    { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'rm -rf src/', description: 'delete the sources' }) }] },
    { content: 'Deleted src/.' },
  ]);
  host = new Host({ transport: 'websocket', configDir });
  events = [];
  host.onEvent((ch, p) => ch === 'chat.event' && events.push((p as HostEvents['chat.event']).event));
  await host.open(root);
  await host.handle('settings.save', { base_url: llm.baseURL, model: 'scripted' });
});

afterEach(async () => {
  await host.dispose();
  await llm.close();
  await cleanup();
  for (const k of ENV) if (saved[k] === undefined) delete process.env[k];
  else process.env[k] = saved[k];
});

it('rm -rf src/ by the agent, sandboxed under an allow rule, then "Undo changes from here" restores every file byte for byte', { timeout: 60_000 }, () => rmRfThenUndo());

it('the same with the folder watched, as the app runs: the snapshots are made from the paths the watcher saw go', { timeout: 60_000 }, async () => {
  const services = (host as unknown as { ws(): { services: WorkspaceServices } }).ws().services;
  const snapshots = (services.captures as unknown as { snapshots: WorkTreeSnapshots }).snapshots;
  // The tree pane's first listing starts the watcher; one snapshot before the request primes the private index.
  await host.handle('tree.list', { dir: '' });
  await until(() => services.journal.live, 30_000);
  await snapshots.take({ ignored: true });
  await rmRfThenUndo();
  expect(snapshots.lastMode).toBe('hashed');
});

async function rmRfThenUndo(): Promise<void> {
  const root = path.join(dir, 'ws');
  const before = await snapshot(root);
  const { session_id, correlation_id } = await host.handle('chat.send', { text: 'remove src' });
  await until(() => events.find((e) => e.type === 'request_finished'), 30_000);
  const call = events.find((e): e is Extract<ChatEvent, { type: 'tool_call_finished' }> => e.type === 'tool_call_finished')!;
  expect(call.ok, call.output).toBe(true);
  expect(call.data).toMatchObject({ sandboxed: true, exit_code: 0 });
  const changes = call.data!.changes as { group_id: string; files: { file: string; change: string }[] };
  expect(changes.files.filter((f) => f.change === 'deleted')).toHaveLength(35);
  expect(Object.keys(await snapshot(root)).filter((f) => f.startsWith('src/'))).toEqual([]);

  // The preview changes nothing and lists every file.
  await until(async () => (await host.handle('chat.sessions', undefined)).find((s) => s.id === session_id && s.requests === 1));
  const preview = await host.handle('chat.undoPreview', { session_id, correlation_id });
  expect(preview.files).toHaveLength(35);
  expect(preview.files.every((f) => !f.conflict && (f.binary || f.before === null))).toBe(true);
  expect(Object.keys(await snapshot(root)).filter((f) => f.startsWith('src/'))).toEqual([]);

  const undone = await host.handle('chat.undo', { session_id, correlation_id, digest: preview.digest, on_conflict: 'refuse' });
  expect(undone.files).toHaveLength(35);
  expect(await snapshot(root)).toEqual(before);
  // git sees the tracked files as they were: nothing staged, nothing changed.
  expect(execFileSync('git', ['status', '--porcelain'], { cwd: root, encoding: 'utf8' }).split('\n').filter((l) => l && !l.includes('src/lib/deep/') && !l.includes('logo.png') && !l.includes('empty.txt'))).toEqual([]);
  // The session says the request stands undone, with the group that redoes it.
  expect((await host.handle('chat.session', { id: session_id })).undone).toEqual([{ correlation_id, group_id: undone.group_id }]);

  // Redo deletes them again; undo and redo are each one step.
  await host.handle('modlog.rollback', { modification_id: undone.group_id });
  expect(Object.keys(await snapshot(root)).filter((f) => f.startsWith('src/'))).toEqual([]);
  expect((await host.handle('chat.session', { id: session_id })).undone).toBeUndefined();
}
