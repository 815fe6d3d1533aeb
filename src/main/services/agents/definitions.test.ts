import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir, writeTree } from '../../../../test/support/tmp';
import { AgentDefinitions, MAX_DEFINITION_BYTES } from './definitions';

let dir: string;
let cleanup: () => Promise<void>;
let root: string;
let home: string;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir('loupe-defs-'));
  root = path.join(dir, 'ws');
  home = path.join(dir, 'home');
  await mkdir(root, { recursive: true });
});
afterEach(() => cleanup());

const list = () => new AgentDefinitions({ root, home: () => home }).list();

describe('agent definitions', () => {
  it('reads every format where its agent keeps it, the repository’s before the person’s', async () => {
    await writeTree(root, {
      '.loupe/agents/planner.md': '---\ndescription: Plans.\ntools: read_file, grep\n---\nPlan it.\n',
      '.claude/agents/reviewer.md': '---\nname: reviewer\ndescription: Reviews diffs.\ntools: Read, Grep, Glob\nmodel: inherit\nmaxTurns: 8\n---\nReview.\n',
      '.claude/agents/planner.md': '---\ndescription: A second planner, shadowed.\n---\n',
      '.github/agents/docs-writer.agent.md': "---\nname: 'Docs Writer'\ndescription: 'Writes docs.'\ntools: ['read', 'edit/editFiles', 'search']\nmodel: ['gpt-4o', 'other']\n---\n# Docs\n",
      '.github/agents/notes.md': '---\ndescription: Not an .agent.md file: not read.\n---\n',
      '.opencode/agent/builder.md': '---\ndescription: Builds.\nmode: subagent\nmaxSteps: 5\ntools:\n  write: false\n  bash: false\npermission:\n  edit: deny\n  webfetch: ask\n---\nBuild.\n',
      '.opencode/agent/main.md': '---\ndescription: The primary agent.\nmode: primary\n---\n',
      '.opencode/agents/off.md': '---\ndescription: Turned off.\ndisable: true\n---\n',
    });
    await writeTree(home, { '.claude/agents/reviewer.md': '---\nname: reviewer\ndescription: The person’s reviewer, shadowed.\n---\n', '.claude/agents/mine.md': '---\nname: mine\ndescription: Only mine.\nisolation: worktree\nbackground: true\npermissionMode: plan\n---\nMine.\n' });
    const { definitions, problems } = await list();
    expect(problems).toEqual([]);
    expect(definitions.map((d) => [d.name, d.dialect, d.path])).toEqual([
      ['planner', 'loupe', '.loupe/agents/planner.md'],
      ['reviewer', 'claude', '.claude/agents/reviewer.md'],
      ['Docs Writer', 'github', '.github/agents/docs-writer.agent.md'],
      ['builder', 'opencode', '.opencode/agent/builder.md'],
      ['mine', 'claude', path.join(home, '.claude/agents/mine.md')],
    ]);
    const [planner, reviewer, docs, builder, mine] = definitions;
    expect(planner).toMatchObject({ description: 'Plans.', tools: ['read_file', 'grep'], instructions: 'Plan it.' });
    expect(reviewer).toMatchObject({ tools: ['Read', 'Grep', 'Glob'], maxTurns: 8 });
    expect(reviewer.model).toBeUndefined();
    expect(docs).toMatchObject({ tools: ['read', 'edit/editFiles', 'search'], model: 'gpt-4o', instructions: '# Docs' });
    expect(builder).toMatchObject({ tools: null, disallowedTools: ['write', 'bash'], deniedKinds: ['edit'], maxTurns: 5 });
    expect(mine).toMatchObject({ isolation: 'worktree', background: true, readOnly: true });
  });

  it('says what it skipped and why: no description, a bad name, a link, a file too big', async () => {
    await writeTree(root, {
      '.claude/agents/nodesc.md': '---\nname: nodesc\n---\nbody\n',
      '.claude/agents/badname.md': '---\nname: "../escape"\ndescription: x\n---\n',
      '.claude/agents/big.md': `---\ndescription: big\n---\n${'x'.repeat(MAX_DEFINITION_BYTES)}`,
      'elsewhere.md': '---\ndescription: through a link\n---\n',
    });
    await symlink(path.join(root, 'elsewhere.md'), path.join(root, '.claude/agents/linked.md'));
    const { definitions, problems } = await list();
    expect(definitions).toEqual([]);
    expect(problems.map((p) => p.path).sort()).toEqual(['.claude/agents/badname.md', '.claude/agents/big.md', '.claude/agents/linked.md', '.claude/agents/nodesc.md']);
    expect(problems.find((p) => p.path.endsWith('nodesc.md'))!.message).toMatch(/no description/);
    expect(problems.find((p) => p.path.endsWith('linked.md'))!.message).toMatch(/link/);
  });

  it('sees an edit at the next look', async () => {
    const file = path.join(root, '.claude/agents/a.md');
    await writeTree(root, { '.claude/agents/a.md': '---\ndescription: first\n---\n' });
    const defs = new AgentDefinitions({ root, home: () => null });
    expect((await defs.list()).definitions[0].description).toBe('first');
    await writeFile(file, '---\ndescription: second, longer\n---\n');
    expect((await defs.list()).definitions[0].description).toBe('second, longer');
  });
});
