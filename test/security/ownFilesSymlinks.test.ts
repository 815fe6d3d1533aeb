// A cloned repository can ship any path Loupe keeps for itself (.loupe/ and what is in it,
// .git/info/exclude) as a symbolic link out of the folder. Each instance here plants one such
// link (absolute, relative, or through a second in-workspace link), then drives the real tools
// and services: writes, edits, rollbacks, the log, sessions, command logs, project rules.
// Nothing in the pretend home may change, no secret from it may come back, and where the link
// sits on the path every modification takes the tools say so with UNSAFE_PATH.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { approveModification, commitApproved } from '../../src/main/services/modlog/facts';
import { ProjectConfig } from '../../src/main/services/permissions/projectConfig';
import { configDigest, type TrustStore } from '../../src/main/services/permissions/trust';
import { SessionStore } from '../../src/main/services/sessions/sessionStore';
import { runCommand } from '../../src/main/services/shell/commandRunner';
import { git } from '../support/tmp';
import { harness, type Harness } from '../support/toolHarness';
import { makeHome, SECRET, snapshot } from './outsideHome';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const ORIGINAL = 'original\n';
const V1 = 'v1 line\n';

interface Plant {
  /** Workspace-relative path of the link. */
  at: string;
  /** Target inside the pretend home ('' for home itself). */
  to: string;
  /** The link is on every modification's path: writes must refuse with UNSAFE_PATH. */
  blocks: boolean;
}

const PLANTS: Plant[] = [
  { at: '.loupe', to: '', blocks: true },
  { at: '.loupe', to: 'dir', blocks: true },
  { at: '.loupe/modifications.jsonl', to: '.bashrc', blocks: true },
  { at: '.loupe/modifications.lock', to: 'secret.txt', blocks: true },
  { at: '.loupe/objects', to: 'dir/objects', blocks: true },
  { at: `.loupe/objects/${sha(ORIGINAL)}`, to: 'secret.txt', blocks: false },
  { at: `.loupe/objects/${sha(V1)}`, to: 'secret.txt', blocks: false },
  { at: '.loupe/sessions', to: 'dir', blocks: false },
  { at: '.loupe/sessions/ses-planted.json', to: 'secret.txt', blocks: false },
  { at: '.loupe/outputs', to: '', blocks: false },
  { at: '.loupe/config.json', to: 'config.json', blocks: false },
  { at: '.git/info', to: 'info', blocks: true },
  { at: '.git/info/exclude', to: '.bashrc', blocks: true },
  { at: '.git/info/exclude', to: 'info/exclude', blocks: true },
];
type Style = 'absolute' | 'relative' | 'via-inner-link';
const STYLES: Style[] = ['absolute', 'relative', 'via-inner-link'];

let h: Harness;
afterEach(() => h?.cleanup());

function plant(root: string, home: string, p: Plant, style: Style): void {
  const link = path.join(root, p.at);
  rmSync(link, { recursive: true, force: true });
  mkdirSync(path.dirname(link), { recursive: true });
  const target = path.join(home, p.to);
  if (style === 'absolute') symlinkSync(target, link);
  else if (style === 'relative') symlinkSync(path.relative(path.dirname(link), target), link);
  else {
    // A link to a link that stays inside the workspace, which itself leads out.
    const inner = path.join(root, `inner-${p.at.replace(/[/.]/g, '_')}`);
    symlinkSync(target, inner);
    symlinkSync(path.relative(path.dirname(link), inner), link);
  }
}

/** A person who trusted the outside config's exact bytes: read through a link, its rules would apply. */
const trustingOutside = (home: string): TrustStore => ({
  trustedDigest: () => configDigest(readFileSync(path.join(home, 'config.json'))),
  trust: async () => undefined,
});

/** Everything a session does with Loupe's own files; returns every result text and the two writes' errors. */
async function driveEverything(root: string, home: string): Promise<{ texts: string[]; writeErrors: { code?: string; message?: string }[] }> {
  const texts: string[] = [];
  const writeErrors: { code?: string; message?: string }[] = [];
  const note = (r: { ok: boolean; output: string; data?: Record<string, unknown>; error?: { code?: string; message?: string } }, isWrite = false) => {
    texts.push(r.output, JSON.stringify(r.data ?? null), JSON.stringify(r.error ?? null));
    if (isWrite && !r.ok) writeErrors.push(r.error ?? {});
    return r;
  };
  const settle = async <T,>(p: Promise<T>) => p.then((v) => (texts.push(JSON.stringify(v ?? null)), v), (e: Error) => (texts.push(String(e?.message)), null));

  note(await h.call('read_file', { path: 'a.txt' }));
  note(await h.call('write_file', { path: 'a.txt', content: V1, reason: 'r $(touch /tmp/x)' }), true);
  note(await h.call('write_file', { path: 'b/new.txt', content: 'new\n' }), true);
  note(await h.call('read_file', { path: 'a.txt' }));
  const edit = note(await h.call('edit_file', { path: 'a.txt', old_str: 'v1 line', new_str: 'v2 line' }));
  const id = typeof edit.data?.modification_id === 'string' ? edit.data.modification_id : 'mod-forged';
  note(await h.call('code_rollback', { modification_id: id }));
  note(await h.call('code_rollback', { modification_id: 'mod-forged' }));
  note(await h.call('modification_log', {}));

  const store = new SessionStore(root);
  await settle(store.load('ses-planted'));
  await settle(store.save(store.create('hello')));
  await settle(store.list());

  await settle(runCommand({ command: 'head -c 200000 /dev/zero | tr "\\0" x', cwd: root, outputDir: path.join(root, '.loupe', 'outputs') }).then((r) => r.text.length));

  const rules = new ProjectConfig(root, trustingOutside(home));
  await settle(rules.load());
  await settle(rules.addRules([{ kind: 'bash', pattern: 'ls', action: 'allow' }]));
  return { texts, writeErrors };
}

/** A log entry the repository shipped, whose before-blob is a link to a secret. */
function forgeLog(root: string): void {
  mkdirSync(path.join(root, '.loupe'), { recursive: true });
  const entry = {
    type: 'modification',
    modification_id: 'mod-forged',
    timestamp: new Date().toISOString(),
    session_id: 'ses-x',
    tool: 'write_file',
    operation: 'overwrite',
    file: 'a.txt',
    before_sha256: sha(`${SECRET}\n`),
    after_sha256: sha(ORIGINAL),
    git_staged: false,
  };
  writeFileSync(path.join(root, '.loupe', 'modifications.jsonl'), JSON.stringify(entry) + '\n');
}

async function setup(): Promise<string> {
  h = await harness({ git: true });
  const home = makeHome(h.sandbox);
  writeFileSync(path.join(home, 'config.json'), JSON.stringify({ permissions: [{ kind: 'bash', pattern: '*', action: 'allow' }] }));
  await h.write('a.txt', ORIGINAL);
  git(h.root, 'add', 'a.txt');
  return home;
}

function expectNothingEscaped(home: string, before: Record<string, string>, texts: string[]): void {
  expect(snapshot(home)).toEqual(before);
  for (const t of texts) expect(t).not.toContain(SECRET);
  for (const [rel, what] of Object.entries(snapshot(h.root))) {
    if (what.startsWith('file ') && !rel.startsWith('.git/')) expect(readFileSync(path.join(h.root, rel), 'utf8'), rel).not.toContain(SECRET);
  }
}

describe('links planted where Loupe keeps its own files', () => {
  const cases = PLANTS.flatMap((p) => STYLES.map((style) => ({ ...p, style })));
  it.each(cases)('$at -> home/$to ($style): nothing outside changes or comes back', async (c) => {
    const home = await setup();
    plant(h.root, home, c, c.style);
    const before = snapshot(home);
    const { texts, writeErrors } = await driveEverything(h.root, home);
    expectNothingEscaped(home, before, texts);
    if (c.blocks) {
      expect(writeErrors.length).toBeGreaterThan(0);
      for (const e of writeErrors) expect(e).toMatchObject({ code: 'UNSAFE_PATH', message: expect.stringContaining(path.basename(c.at)) });
    }
    // Projects rules in a file outside the workspace never apply.
    expect((await new ProjectConfig(h.root, trustingOutside(home)).load()).rules.some((r) => r.pattern === '*')).toBe(false);
  });

  it('a shipped log entry whose before-blob is a link to a secret cannot roll a secret into the workspace', async () => {
    const home = await setup();
    forgeLog(h.root);
    plant(h.root, home, { at: `.loupe/objects/${sha(`${SECRET}\n`)}`, to: 'secret.txt', blocks: false }, 'absolute');
    const before = snapshot(home);
    const r = await h.call('code_rollback', { modification_id: 'mod-forged' });
    expect(r.error?.code).toBe('UNSAFE_PATH');
    expectNothingEscaped(home, before, [r.output, JSON.stringify(r.data ?? null)]);
    expect(await h.read('a.txt')).toBe(ORIGINAL);
  });

  it('an approved change whose blob was swapped for a link never commits the link\'s target', async () => {
    const home = await setup();
    git(h.root, 'commit', '-qm', 'base');
    await h.call('read_file', { path: 'a.txt' });
    const w = await h.call('write_file', { path: 'a.txt', content: V1 });
    await approveModification(h.ctx.modlog, w.data!.modification_id as string);
    const blob = `.loupe/objects/${sha(V1)}`;
    rmSync(path.join(h.root, blob));
    plant(h.root, home, { at: blob, to: 'secret.txt', blocks: false }, 'absolute');
    await expect(commitApproved(h.ctx.modlog, 'approved')).rejects.toMatchObject({ code: 'UNSAFE_PATH' });
    expect(git(h.root, 'log', '--format=%s')).toBe('base\n');
    const objects = git(h.root, 'cat-file', '--batch-all-objects', '--batch');
    expect(objects).not.toContain(SECRET);
  });

  it('.loupe as a link to a folder inside the workspace is refused too: it must be a real folder', async () => {
    await setup();
    mkdirSync(path.join(h.root, 'elsewhere'));
    symlinkSync('elsewhere', path.join(h.root, '.loupe'));
    const r = await h.call('write_file', { path: 'c.txt', content: 'x\n' });
    expect(r.error).toMatchObject({ code: 'UNSAFE_PATH', message: expect.stringMatching(/^\.loupe is a symbolic link.*real folder/s) });
  });
});
