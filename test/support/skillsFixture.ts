// The skills test repository (test/fixtures/skills-repo) and a person's home beside it
// (test/fixtures/skills-home), copied into a fresh temp folder for each test: their skills and
// commands reproduce the shapes real ones take, written for these tests.
import { cp, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { tempDir } from './tmp';

export const SKILLS_REPO = path.resolve(__dirname, '../fixtures/skills-repo');
export const SKILLS_HOME = path.resolve(__dirname, '../fixtures/skills-home');

export interface SkillsWorld {
  dir: string;
  /** The workspace (a copy of the skills repository). */
  root: string;
  /** The person's home (HOME), with their own skills and commands. */
  home: string;
  /** Loupe's config folder (LOUPE_HOME). */
  configDir: string;
  cleanup: () => Promise<void>;
}

export async function skillsWorld(opts: { repo?: boolean; home?: boolean } = {}): Promise<SkillsWorld> {
  const t = await tempDir('loupe-skills-');
  const root = path.join(t.dir, 'repo');
  const home = path.join(t.dir, 'home');
  const configDir = path.join(t.dir, 'loupe-config');
  await mkdir(root, { recursive: true });
  await mkdir(home, { recursive: true });
  await mkdir(configDir, { recursive: true });
  if (opts.repo !== false) await cp(SKILLS_REPO, root, { recursive: true });
  if (opts.home !== false) await cp(SKILLS_HOME, home, { recursive: true });
  return { dir: t.dir, root, home, configDir, cleanup: t.cleanup };
}
