import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildSystemPrompt } from '../../src/main/agent/prompts/systemPrompt';
import { tempDir } from '../support/tmp';

let tmp: { dir: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  tmp = await tempDir('loupe-prompt-');
});
afterEach(() => tmp.cleanup());

describe('system prompt', () => {
  it('states the tool rules and the workspace, and appends AGENTS.md when present', async () => {
    const plain = await buildSystemPrompt(tmp.dir);
    expect(plain).toMatch(/Read a file with read_file before editing/);
    expect(plain).toMatch(/smallest snippet that is unique/);
    expect(plain).toMatch(/Never include the line-number prefixes/);
    expect(plain).toContain(`Workspace root: ${tmp.dir}`);
    expect(plain).not.toContain('AGENTS.md (follow them)');
    await writeFile(path.join(tmp.dir, 'AGENTS.md'), 'Always use tabs.\n');
    expect(await buildSystemPrompt(tmp.dir)).toMatch(/Project instructions from AGENTS\.md \(follow them\):\n\nAlways use tabs\.$/);
  });
});
