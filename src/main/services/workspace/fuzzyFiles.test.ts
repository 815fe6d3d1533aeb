import { describe, expect, it } from 'vitest';
import { findFiles, fuzzyScore } from './fuzzyFiles';

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
