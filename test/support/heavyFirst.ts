// The order vitest runs files in: the long ones first. On a clean clone vitest knows no
// durations and runs larger files first, which put the two undo properties (small files, four
// minutes each) last: one worker ran alone for minutes at the end of every CI run. Known
// durations (a warm local cache) still win; without them, generated-sequence properties and
// tests that drive the built CLI go first, each group largest file first.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const rank = (id: string) => (/\.property\.test\.ts$/.test(id) ? 0 : /\.e2e\.test\.ts$|\/test\/lsp\//.test(id) ? 1 : 2);

export default class HeavyFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const known = files.every((f) => this.ctx.cache.getFileTestResults(`${f.project.name}:${f.moduleId.slice(this.ctx.config.root.length + 1)}`));
    const sorted = await super.sort(files);
    if (known) return sorted;
    return sorted.map((f, i) => ({ f, i })).sort((a, b) => rank(a.f.moduleId) - rank(b.f.moduleId) || a.i - b.i).map(({ f }) => f);
  }
}
