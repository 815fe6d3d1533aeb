// A real workspace for the bash analysis corpora: Loupe's and Git's own files, a secret that a
// read rule denies, a folder outside reached through an in-workspace symlink (and a dangling
// one), and broad allow rules of the kind a person grants after a few approvals.
import { execFileSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ProjectConfig } from '../../src/main/services/permissions/projectConfig';
import { PermissionEngine } from '../../src/main/services/permissions/ruleEngine';
import type { PermissionRule } from '../../src/main/services/permissions/types';
import { afterAll, beforeAll } from 'vitest';
import { tempDir, writeTree } from '../support/tmp';

/** Every command these corpora run is allowed by a rule like these: none names a protected path. */
export const BROAD_COMMANDS =
  'echo printf cat head tail tee cp mv dd sed awk xargs tar unzip find ls grep rg sort uniq touch truncate ln install chmod rm mkdir base64 xxd od strings wc diff cut git perl python3 node rsync patch curl wget true bash sh'.split(' ');

export const RULES: PermissionRule[] = [
  ...BROAD_COMMANDS.map((c): PermissionRule => ({ kind: 'bash', pattern: `${c} *`, action: 'allow' })),
  { kind: 'read', pattern: '**/.env', action: 'deny' },
  { kind: 'read', pattern: 'secrets/**', action: 'deny' },
];

export interface BashWorkspace {
  root: string;
  outside: string;
  home: string;
  engine: PermissionEngine;
  cleanup: () => Promise<void>;
}

/** How far up the words of these corpora may climb (`..`, `{.,..}` in up to three components). */
const CLIMB = 3;

export async function bashWorkspace(): Promise<BashWorkspace> {
  // One private tree holds the workspace, the outside folder and the home, that far below its
  // top: bash globs whatever the words reach, and a shared temp folder within reach let another
  // process's files land between bash's answer and the analysis.
  const world = await tempDir('loupe-bashworld-');
  const base = path.join(world.dir, ...Array.from({ length: CLIMB }, (_, i) => `up${i}`));
  const root = path.join(base, 'ws');
  const out = { dir: path.join(base, 'outside') };
  const home = { dir: path.join(base, 'home') };
  for (const d of [root, out.dir, home.dir]) await mkdir(d, { recursive: true });
  execFileSync('git', ['init', '-q', root]);
  await writeTree(root, {
    '.loupe/config.json': '{}',
    '.git/hooks/pre-commit': '#!/bin/sh\n',
    '.git/info/exclude': '',
    '.env': 'SECRET=1\n',
    'secrets/prod.key': 'k',
    'src/a.ts': 'a',
    'src/.env': 'SECRET=2\n',
    'sub/dir/file.txt': 'x',
  });
  await writeFile(path.join(out.dir, 'file'), 'outside');
  await mkdir(path.join(out.dir, 'nested'));
  await symlink(out.dir, path.join(root, 'outdir'));
  await symlink(path.join(out.dir, 'made-by-link'), path.join(root, 'dangling'));
  await symlink('.git', path.join(root, 'gitlink'));
  await symlink(home.dir, path.join(root, 'homelink'));
  // The rules are the user's (always in force); the folder's own config is empty and untrusted.
  const untrusted = { trustedDigest: () => null, trust: async () => {} };
  const engine = new PermissionEngine({ root, project: new ProjectConfig(root, untrusted), userRules: () => RULES });
  return {
    root,
    outside: out.dir,
    home: home.dir,
    engine,
    cleanup: world.cleanup,
  };
}

/** One workspace for the whole file, with HOME pointed at its own folder (so `~` is known and outside). */
export function useBashWorkspace(): () => BashWorkspace {
  let ws: BashWorkspace | undefined;
  let savedHome: string | undefined;
  beforeAll(async () => {
    ws = await bashWorkspace();
    savedHome = process.env.HOME;
    process.env.HOME = ws.home;
  });
  afterAll(async () => {
    process.env.HOME = savedHome;
    await ws?.cleanup();
  });
  return () => ws!;
}
