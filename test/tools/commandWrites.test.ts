// A command's writes are modifications (the rewind issue): created, changed, deleted and renamed
// files, binary ones too, recorded as one group attributed to the command, in the log and
// reversible; ignored paths counted, never recorded; the same in a folder that is not a repo.
import { mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../support/toolHarness';
import { git } from '../support/tmp';

let h: Harness | null = null;
afterEach(async () => {
  await h?.cleanup();
  h = null;
});

const BIN = Buffer.from([0, 1, 2, 250, 251, 0, 9, 10, 13]);

async function seed(x: Harness, repo: boolean) {
  await x.write('src/a.txt', 'one\ntwo\nthree\n');
  await x.write('src/b.txt', 'bee\n');
  await x.write('src/move-me.txt', 'a file that moves\nwith some lines\nso rename detection sees it\n');
  await writeFile(path.join(x.root, 'img.bin'), BIN);
  await x.write('.gitignore', 'node_modules/\nbuild/\n');
  await mkdir(path.join(x.root, 'node_modules', 'pkg'), { recursive: true });
  if (repo) {
    git(x.root, 'add', '-A');
    git(x.root, 'commit', '-qm', 'seed');
  }
  await x.write('untracked.txt', 'not in git\n');
}

async function tree(root: string, rel = ''): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(path.join(root, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (r === '.git' || r === '.loupe') continue;
    if (e.isDirectory()) Object.assign(out, await tree(root, r));
    else out[r] = (await readFile(path.join(root, r))).toString('base64');
  }
  return out;
}

describe.each([
  ['a git repository', true],
  ['a folder that is not a repository', false],
])('bash writes in %s', (_name, repo) => {
  it('are one group of modifications attributed to the command, and roll back byte for byte', async () => {
    h = await harness({ git: repo });
    await seed(h, repo);
    const before = await tree(h.root);
    const command =
      "printf 'one\\n2\\nthree\\n' > src/a.txt && rm src/b.txt && mv src/move-me.txt src/moved.txt && printf 'new\\n' > src/c.txt && printf '\\001\\002\\000x' > img.bin && rm untracked.txt && mkdir -p build node_modules/pkg && echo out > build/x.js && echo m > node_modules/pkg/i.js";
    const r = await h.call('bash', { command, description: 'shuffle files', correlation_id: 'req-1' });
    expect(r.ok, r.output).toBe(true);
    const changes = r.data!.changes as { group_id: string; files: { file: string; change: string; renamed?: string }[]; ignored_changed: number };
    expect(changes.group_id).toMatch(/^cmd-/);
    const byFile = Object.fromEntries(changes.files.map((f) => [f.file, f]));
    expect(byFile['src/a.txt']?.change).toBe('changed');
    expect(byFile['src/b.txt']?.change).toBe('deleted');
    expect(byFile['src/c.txt']?.change).toBe('created');
    expect(byFile['img.bin']?.change).toBe('changed');
    expect(byFile['untracked.txt']?.change).toBe('deleted');
    expect(byFile['src/moved.txt']).toMatchObject({ change: 'created', renamed: 'src/move-me.txt' });
    expect(byFile['src/move-me.txt']).toMatchObject({ change: 'deleted', renamed: 'src/moved.txt' });
    expect(Object.keys(byFile).some((f) => f.startsWith('build/') || f.startsWith('node_modules/'))).toBe(false);
    // build/ appeared; node_modules/ is one entry whose own listing did not change (pkg/ was there).
    expect(changes.ignored_changed).toBe(1);
    expect(r.output).toContain(changes.group_id);

    const log = await h.call('modification_log', { correlation_id: 'req-1' });
    const mods = log.data!.modifications as { tool: string; command?: string; group_id?: string; file: string }[];
    expect(mods).toHaveLength(changes.files.length);
    for (const m of mods) expect(m).toMatchObject({ tool: 'bash', command, group_id: changes.group_id });

    const undo = await h.call('code_rollback', { modification_id: changes.group_id });
    expect(undo.ok, undo.output).toBe(true);
    const after = await tree(h.root);
    // Ignored output stays: the undo touches only what the log knows.
    expect(after['build/x.js']).toBeDefined();
    delete after['build/x.js'];
    delete after['node_modules/pkg/i.js'];
    expect(after).toEqual(before);

    // And the undo is itself one step: rolling its group back redoes the command's writes.
    const redo = await h.call('code_rollback', { modification_id: (undo.data as { rollback_id: string }).rollback_id });
    expect(redo.ok, redo.output).toBe(true);
    expect((await readFile(path.join(h.root, 'src/c.txt'), 'utf8'))).toBe('new\n');
    expect(await readFile(path.join(h.root, 'img.bin'))).toEqual(Buffer.from([1, 2, 0, 0x78]));
  });
});

describe('bash writes, more', () => {
  it('a command that changes nothing records nothing', async () => {
    h = await harness({ git: true });
    await seed(h, true);
    const r = await h.call('bash', { command: 'cat src/a.txt', description: 'read', correlation_id: 'req-1' });
    expect(r.data!.changes).toMatchObject({ group_id: null, files: [] });
    expect((await h.call('modification_log', {})).data!.modifications).toEqual([]);
  });

  it('an executable file deleted by a command comes back executable', async () => {
    h = await harness({ git: true });
    await h.write('run.sh', '#!/bin/sh\necho hi\n');
    await import('node:fs/promises').then((fs) => fs.chmod(path.join(h!.root, 'run.sh'), 0o755));
    const r = await h.call('bash', { command: 'rm run.sh', description: 'remove', correlation_id: 'req-1' });
    const group = (r.data!.changes as { group_id: string }).group_id;
    expect((await h.call('code_rollback', { modification_id: group })).ok).toBe(true);
    expect((await stat(path.join(h.root, 'run.sh'))).mode & 0o777).toBe(0o755);
  });
});

describe('a background process', () => {
  it('what it writes while it runs is recorded when it ends, attributed to its command and request', { timeout: 60_000 }, async () => {
    h = await harness({ git: true });
    await h.write('README.md', 'readme\n');
    const command = "printf 'generated\\n' > gen.txt && echo ready && sleep 60";
    const start = await h.call('bash', { command, description: 'generate, then serve', run_in_background: true, wait_for: { regex: 'ready', timeout: 20_000 }, correlation_id: 'req-bg' });
    expect(start.ok, start.output).toBe(true);
    const id = start.data!.process_id as string;
    // Nothing is recorded while it runs.
    expect((await h.call('modification_log', {})).data!.modifications).toEqual([]);
    expect((await h.call('process_kill', { id })).ok).toBe(true);
    // Recorded by the time the kill answers: the agent may look at the log next.
    const mods = (await h.call('modification_log', { correlation_id: 'req-bg' })).data!.modifications as { file: string; tool: string; command: string; group_id: string; operation: string }[];
    expect(mods).toEqual([expect.objectContaining({ file: 'gen.txt', tool: 'bash', command, operation: 'create', group_id: expect.stringMatching(/^cmd-/) })]);
    expect((await h.call('code_rollback', { modification_id: mods[0].group_id })).ok).toBe(true);
    await expect(stat(path.join(h.root, 'gen.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
