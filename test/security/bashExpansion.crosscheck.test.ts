// The analysis expands words the way bash does: for random words built from globs, brackets,
// braces, quotes, `~` and the names in a real workspace, every word real bash produces must be
// among the words the analysis considered, or the analysis must have said "unknown" (which
// asks). One bash process expands the whole sample. Everything the words can reach, up to
// three folders above the workspace, is the test's own (bashWorkspace.ts): nothing another
// process makes can land between bash's answer and the analysis.
import path from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { analyseCommand } from '../../src/main/services/permissions/commandAnalysis';
import { expandWord } from '../../src/main/services/permissions/expansion';
import { bashExpansions } from './bashSpellings';
import { useBashWorkspace, type BashWorkspace } from './bashWorkspace';

const workspace = useBashWorkspace();
let ws: BashWorkspace;
beforeAll(() => {
  ws = workspace();
});

const NAMES = ['src', 'a.ts', '.git', '.loupe', 'outdir', 'dangling', 'sub', 'dir', 'file.txt', 'config', 'hooks', '.env', 'nested', 'gitlink', 'x'];
const GLOBS = ['*', '?', '??', '[a-z]', '[!a]', '[.]', '[[:alpha:]]', '[[:punct:]]', '[a-]', '[]x]', '**', '.*', '\\*', "'*'", '"?"', '[', ']', '.', 'o', 'i', 'e'];
const BRACES = ['{a,b}', '{src,sub}', '{.git,.loupe}', '{1..3}', '{a..c}', '{}', '{x}', '{,.}', '{.,..}', '{*,?}', '{[a-z],x}'];
const LEADS = ['', './', '~/', '~', '~+/', 'sub/../', 'gitlink/', 'outdir/', 'homelink/', '\\~/', '"~"/'];

/** Words drawn from the pieces above; leading `../` only before the workspace's own name, so other tests' temp dirs never race in. */
function words(): fc.Arbitrary<string> {
  const piece = fc.oneof(fc.constantFrom(...NAMES), fc.constantFrom(...GLOBS), fc.constantFrom(...BRACES));
  const component = fc.array(piece, { minLength: 1, maxLength: 3 }).map((p) => p.join(''));
  return fc
    .tuple(fc.constantFrom(...LEADS, 'UP'), fc.array(component, { minLength: 1, maxLength: 3 }))
    .map(([lead, comps]) => (lead === 'UP' ? `../${path.basename(ws.root)}/` : lead) + comps.join('/'))
    .filter((w) => !w.startsWith('#'));
}

const FIXED = [
  '.loup?/config.json',
  '.gi?/hooks/pre-commi?',
  '.git/info/exclud[a-z]',
  'outdi?/fil?',
  'outdir/nested/../*',
  'gitlink/../.l*',
  '{.git,.loupe}/*',
  '.*/config*',
  '*/.e*',
  '~/*',
  '~+/.gi?',
  'sub/**',
  '**/file.txt',
  '.[!.]*',
  '[.]*',
  '?env',
  '.??v',
  "'.'env",
  '"."*',
  '\\.e*',
  'a{,b}c',
  '{src,sub}/{a.ts,dir}',
  '.{git,loupe}/c*',
  'x{1..3}',
  'x{01..10..3}',
];

describe('word expansion matches real bash', () => {
  it('every word bash produces was considered, or the word was unknown (fixed tricky words + 1500 random ones)', async () => {
    const sample = [...FIXED, ...fc.sample(words(), { numRuns: 1500, seed: 42 })];
    const fromBash = bashExpansions(sample, ws.root, ws.home);
    const misses: string[] = [];
    let known = 0;
    for (const [i, word] of sample.entries()) {
      const a = await analyseCommand(`cat ${word}`);
      const refs = a.paths.filter((p) => p.by === 'cat');
      if (a.problems.length || refs.length === 0) continue;
      const ours = new Set<string>();
      let unknown = false;
      for (const r of refs) {
        const e = expandWord(r.word, { cwd: ws.root });
        if (e === null) unknown = true;
        else e.forEach((x) => ours.add(x));
      }
      if (unknown) continue;
      known++;
      const missing = (fromBash[i] ?? []).filter((b) => !ours.has(b));
      if (missing.length) misses.push(`${word} → bash ${JSON.stringify(fromBash[i])}, analysis ${JSON.stringify([...ours])}`);
    }
    expect(misses.slice(0, 10), `${misses.length} of ${known} words differ`).toEqual([]);
    // Most words are resolved, not waved through as unknown.
    expect(known).toBeGreaterThan(sample.length * 0.8);
  }, 600_000);
});
