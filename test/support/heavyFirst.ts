// The order vitest runs files in: the long ones first, so that neither worker runs alone at
// the end. On a clean clone vitest knows no durations and runs larger files first, which put
// the two undo properties (small files, minutes each) last. Known durations (a warm local
// cache) win; without them, each file's seconds from a clean run (durations.json, refreshed by
// scripts/testDurations.mjs), longest first; a file not in it yet ranks by its kind:
// generated-sequence properties and tests that drive the built CLI are the long ones.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const DURATIONS: Record<string, number> = JSON.parse(readFileSync(path.join(__dirname, 'durations.json'), 'utf8'));
/** Seconds assumed for a file the table does not know, by kind. */
const guess = (id: string) => (/\.property\.test\.ts$/.test(id) ? 30 : /\.e2e\.test\.ts$|\/test\/lsp\//.test(id) ? 10 : 1);

export default class HeavyFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rel = (f: TestSpecification) => f.moduleId.slice(this.ctx.config.root.length + 1);
    const known = files.every((f) => this.ctx.cache.getFileTestResults(`${f.project.name}:${rel(f)}`));
    const sorted = await super.sort(files);
    if (known) return sorted;
    const secs = (f: TestSpecification) => DURATIONS[rel(f)] ?? guess(f.moduleId);
    return sorted.map((f, i) => ({ f, i, s: secs(f) })).sort((a, b) => b.s - a.s || a.i - b.i).map(({ f }) => f);
  }
}
