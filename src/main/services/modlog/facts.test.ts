// "Commit approved" on a real repository: the error words the review pane shows, and no
// empty commit when the approved work is already in HEAD.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { git, tempDir } from '../../../../test/support/tmp';
import { ModificationLog } from './modificationLog';
import { approveModification, commitApproved } from './facts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function repo(withGit = true) {
  const { dir, cleanup } = await tempDir('loupe-commit-test-');
  cleanups.push(cleanup);
  await writeFile(path.join(dir, 'a.txt'), 'a\n');
  if (withGit) {
    git(dir, 'init', '-q');
    git(dir, 'config', 'user.email', 't@example.com');
    git(dir, 'config', 'user.name', 'T');
    git(dir, 'add', '.');
    git(dir, 'commit', '-qm', 'base');
  }
  const log = new ModificationLog(dir);
  const edit = async (content: string) => (await log.apply({ file: 'a.txt', abs: path.join(dir, 'a.txt'), content: Buffer.from(content), tool: 'edit_file', operation: 'edit', sessionId: 's' })).modificationId;
  return { dir, log, edit };
}

describe('commitApproved', () => {
  it('names the unapproved modifications, then commits, then refuses an empty second commit', async () => {
    const { dir, log, edit } = await repo();
    await expect(commitApproved(log, 'x')).rejects.toThrow(/No modification is approved yet/);
    const m1 = await edit('a\nb\n');
    const m2 = await edit('a\nb\nc\n');
    await approveModification(log, m1);
    await expect(commitApproved(log, 'x')).rejects.toThrow(`Not every modification of these files is approved: ${m2} (a.txt)`);
    await approveModification(log, m2);
    const out = await commitApproved(log, 'Add b and c');
    expect(out.files).toEqual(['a.txt']);
    expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(out.commit);
    expect(git(dir, 'show', 'HEAD:a.txt')).toBe('a\nb\nc\n');
    await expect(commitApproved(log, 'again')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/already holds the approved changes of a\.txt/) });
    expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(out.commit);
  });

  it('says so outside a git repository', async () => {
    const { log, edit } = await repo(false);
    await approveModification(log, await edit('z\n'));
    await expect(commitApproved(log, 'x')).rejects.toThrow(/not a git repository/);
  });
});
