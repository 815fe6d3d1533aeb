import { describe, expect, it } from 'vitest';
import { findFiles, fuzzyScore, rankPaths, searchablePaths } from './fuzzyFiles';

describe('quick open ranking', () => {
  it('needs the characters in order; prefers the file name, word starts and runs', () => {
    expect(fuzzyScore('src/app/main.ts', 'xyz')).toBeNull();
    const files = ['src/renderer/app/App.tsx', 'docs/app-notes.md', 'src/main/host/agent.ts', 'src/renderer/app/approve/panel.ts'];
    expect(findFiles(files, 'apptsx', 10)[0]).toBe('src/renderer/app/App.tsx');
    expect(findFiles(files, 'app', 2).sort()).toEqual(['docs/app-notes.md', 'src/renderer/app/App.tsx']);
    expect(findFiles(files, 'agent', 10)).toEqual(['src/main/host/agent.ts']);
    expect(findFiles(files, 'h agent', 10)).toEqual(['src/main/host/agent.ts']);
    expect(findFiles(files, '', 2)).toHaveLength(2);
  });
});

describe('ranking with a filter', () => {
  it('returns the best of the kept paths, asking the filter only of contenders', () => {
    const files = Array.from({ length: 2000 }, (_, i) => `pkg${i % 40}/src/file${i}.ts`).concat(['src/main.ts', 'src/manifest.json', '.env', 'src/main/.env']);
    const asked: string[] = [];
    const keep = (p: string) => (asked.push(p), !p.endsWith('.env'));
    const ranked = rankPaths(files, 'src/ma', 5, keep);
    expect(ranked.map((r) => r.path)).toEqual(['src/main.ts', 'src/manifest.json']);
    // An empty query matches everything: the shortest kept paths, and the filter asked of few.
    asked.length = 0;
    const all = rankPaths(files, '', 3, keep).map((r) => r.path);
    expect(all).not.toContain('.env');
    expect(all).toHaveLength(3);
    expect(all[0]).toBe('src/main.ts');
    expect(all.map((p) => p.length)).toEqual([...all.map((p) => p.length)].sort((a, b) => a - b));
    expect(asked.length).toBeLessThan(files.length);
    // Without a filter it agrees with sorting everything.
    const sorted = files.map((path) => ({ path, score: fuzzyScore(path, 'fl1')! })).filter((h) => h.score !== null);
    sorted.sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1));
    expect(rankPaths(files, 'fl1', 20)).toEqual(sorted.slice(0, 20));
    // The index's lower-cased list ranks exactly as the paths themselves.
    const mixed = files.map((p, i) => (i % 3 ? p : p.toUpperCase()));
    for (const q of ['', 'src/ma', 'PKG3/F', 'fl1', 'zzq']) expect(rankPaths(searchablePaths(mixed), q, 25, keep)).toEqual(rankPaths(mixed, q, 25, keep));
  });
});
