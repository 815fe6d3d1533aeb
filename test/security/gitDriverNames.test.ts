// Whatever a repository calls its drivers, Loupe's git calls neutralise them: generated driver
// names (with `=`, dots, dashes, unicode…) for filters, textconv and diff commands, defined in
// the repository's config, applied by .gitattributes, each a program that leaves a marker.
import { appendFile, chmod, mkdir, readdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { gitStatus } from '../../src/main/services/git/gitStatus';
import { GitIndex } from '../../src/main/services/modlog/gitIndex';
import { git, tempDir } from '../support/tmp';

const NAME_CHARS = 'abcXYZ019=._-+:@%,é'.split('');
const names = fc.sample(fc.array(fc.constantFrom(...NAME_CHARS), { minLength: 1, maxLength: 10 }).map((a) => a.join('')), { numRuns: 40, seed: 10 });
const unique = [...new Set(names)].filter((n) => !n.startsWith('-'));

let dir: string;
let cleanup: () => Promise<void>;
let root: string;
let marks: string;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('loupe-drivers-'));
  root = path.join(dir, 'ws');
  marks = path.join(dir, 'marks');
  await mkdir(root);
  await mkdir(marks);
  git(root, 'init', '-q');
  const attrs: string[] = [];
  unique.forEach((_, i) => attrs.push(`f${i}.txt filter=${unique[i]} diff=${unique[i]}`));
  await writeFile(path.join(root, '.gitattributes'), `${attrs.join('\n')}\n`);
  for (let i = 0; i < unique.length; i++) await writeFile(path.join(root, `f${i}.txt`), `file ${i}\n`);
  git(root, 'add', '.');
  git(root, 'commit', '-q', '-m', 'base');
  const trap = path.join(dir, 'trap.sh');
  await writeFile(trap, `#!/bin/sh\ntouch "${marks}/$(date +%s%N)"\n[ $# -eq 0 ] && exec cat\nexit 0\n`);
  await chmod(trap, 0o755);
  // One write of the config, not 240 `git config` runs: a busy machine spent the hook's time on them.
  const sections = unique.map((n) => `[filter "${n}"]\n\tclean = ${trap}\n\tsmudge = ${trap}\n\tprocess = ${trap}\n\trequired = true\n[diff "${n}"]\n\ttextconv = ${trap}\n\tcommand = ${trap}\n`);
  await appendFile(path.join(root, '.git', 'config'), sections.join(''));
  // git reads every name back as the driver it is (the control for the test below).
  const read = git(root, 'config', '--get-regexp', '^filter\\..*\\.clean$').trim().split('\n');
  expect(read.sort()).toEqual(unique.map((n) => `filter.${n}.clean ${trap}`).sort());
  const later = new Date(Date.now() + 3600_000);
  for (let i = 0; i < unique.length; i++) {
    await writeFile(path.join(root, `f${i}.txt`), `file ${i}, changed\n`);
    await utimes(path.join(root, `f${i}.txt`), later, later);
  }
});
afterAll(() => cleanup());

it(`neutralises ${unique.length} generated driver names through status, staging and blobs`, async () => {
  expect(unique.length).toBeGreaterThan(25);
  expect(await readdir(marks)).toEqual([]);
  const index = (await GitIndex.detect(root))!;
  const status = await gitStatus(root);
  const staged = [];
  for (let i = 0; i < unique.length; i++) staged.push(await index.stage(`f${i}.txt`));
  await index.raw(['diff', '--cached', '--stat']);
  await index.raw(['log', '-p', '-1']);
  expect(await readdir(marks)).toEqual([]);
  expect(Object.keys(status)).toHaveLength(unique.length);
  expect(staged.every(Boolean)).toBe(true);
  for (let i = 0; i < unique.length; i++) expect((await index.blob('HEAD', `f${i}.txt`))?.toString()).toBe(`file ${i}\n`);
});
