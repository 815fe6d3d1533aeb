// Every git process Loupe starts goes through services/git/gitRunner.ts, the one place that
// neutralises a repository's programs. A second way to run git would silently skip that.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');
const RUNNER = 'src/main/services/git/gitRunner.ts';

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return sources(rel);
    return /\.(ts|tsx|mjs|cjs|js)$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [rel] : [];
  });
}

it('no source but the git runner starts git or imports a git library', () => {
  const offenders: string[] = [];
  for (const rel of sources('src')) {
    if (rel === RUNNER) continue;
    const text = readFileSync(path.join(ROOT, rel), 'utf8');
    if (/from ['"](simple-git|isomorphic-git|nodegit|dugite)['"]|require\(['"](simple-git|isomorphic-git|nodegit|dugite)['"]\)/.test(text)) offenders.push(`${rel}: imports a git library`);
    if (/\b(spawn|spawnSync|execFile|execFileSync|exec|execSync|fork)\(\s*['"`](?:[^'"`]*\/)?git(?:\.exe)?['"`]/.test(text)) offenders.push(`${rel}: starts git itself`);
  }
  expect(offenders).toEqual([]);
  expect(readFileSync(path.join(ROOT, RUNNER), 'utf8')).toMatch(/\bspawn\(\s*'git', args/);
});
