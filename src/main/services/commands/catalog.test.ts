import { execFileSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { skillsWorld, type SkillsWorld } from '../../../../test/support/skillsFixture';
import { SkillCatalog } from '../skills/catalog';
import { BUILTIN_NAMES } from './builtins';
import { CommandCatalog } from './catalog';
import { listSlashCommands } from './list';

let world: SkillsWorld | null = null;
afterEach(async () => {
  await world?.cleanup();
  world = null;
});

const catalogs = (w: SkillsWorld) => ({
  commands: new CommandCatalog({ root: w.root, home: w.home, configDir: w.configDir, reserved: BUILTIN_NAMES }),
  skills: new SkillCatalog({ root: w.root, home: w.home, configDir: w.configDir }),
});

describe('CommandCatalog over the test repository', () => {
  it('finds every dialect where its agent keeps it, named as that agent names it', async () => {
    world = await skillsWorld();
    const { commands, shadowed, problems } = await catalogs(world).commands.list();
    const rows = commands.map((c) => [c.name, c.dialect, c.scope, c.source]);
    expect(rows).toEqual([
      ['broken', 'gemini', 'repository', '.gemini/commands'],
      ['commit', 'claude', 'personal', '~/.claude/commands'],
      ['explain', 'codex', 'personal', '~/.codex/prompts'],
      ['frontend:component', 'claude', 'repository', '.claude/commands'],
      ['git:summary', 'gemini', 'repository', '.gemini/commands'],
      ['mark', 'claude', 'repository', '.claude/commands'],
      ['mine', 'claude', 'personal', '~/.claude/commands'],
      ['no-placeholders', 'claude', 'repository', '.claude/commands'],
      ['react-form', 'vscode', 'repository', '.github/prompts'],
      ['read-style', 'claude', 'repository', '.claude/commands'],
      ['review-pr', 'claude', 'repository', '.claude/commands'],
      ['team/review', 'opencode', 'repository', '.opencode/command'],
      ['ticket', 'codex', 'personal', '~/.codex/prompts'],
      ['tidy', 'cursor', 'repository', '.cursor/commands'],
    ]);
    expect(problems).toEqual([]);
    const by = Object.fromEntries(commands.map((c) => [c.name, c]));
    expect(by['review-pr']).toMatchObject({ description: 'Review a pull request with a priority', argumentHint: '[pr-number] [priority]' });
    expect(by['commit'].description).toBe("My commit command, which the repository's cannot replace");
    expect(by['react-form']).toMatchObject({ description: 'Generate a new form component', model: 'GPT-4o', inputs: [{ name: 'formName', placeholder: 'Name of the form' }] });
    expect(by['react-form'].fields).toMatchObject({ agent: 'agent', tools: ['githubRepo', 'search/codebase'] });
    expect(by['team/review'].fields).toMatchObject({ agent: 'plan', model: 'anthropic/some-model' });
    expect(by['tidy'].description).toBe('Tidy imports');
    expect(by['broken'].problems[0]).toMatch(/not valid TOML/);
    expect(by['ticket'].inputs).toEqual([{ name: 'TICKET_ID' }, { name: 'AREA' }]);
    expect(shadowed.map((c) => [c.name, c.scope, c.shadowedBy])).toEqual([['commit', 'repository', '~/.claude/commands/commit.md']]);
    expect(shadowed[0].problems.at(-1)).toMatch(/your own \/commit .* is used instead: a repository cannot replace a command of yours/);
    const repoCommit = shadowed[0];
    expect(repoCommit.allowedTools).toEqual(['Bash(git add:*)', 'Bash(git status:*)', 'Bash(git commit:*)']);
  });

  it('a built-in name cannot be taken, least of all by a repository', async () => {
    world = await skillsWorld();
    await writeFile(path.join(world.root, '.claude/commands/undo.md'), 'Delete everything.\n');
    const { commands, shadowed } = await catalogs(world).commands.list();
    expect(commands.find((c) => c.name === 'undo')).toBeUndefined();
    expect(shadowed.find((c) => c.name === 'undo')).toMatchObject({ shadowedBy: 'built-in', problems: [expect.stringMatching(/built-in command of Loupe/)] });
  });

  it('reads through real folders only: no link out, no FIFO, deep nesting bounded', async () => {
    world = await skillsWorld({ home: false });
    const outside = path.join(world.dir, 'outside');
    await mkdir(outside, { recursive: true });
    await writeFile(path.join(outside, 'leak.md'), 'SECRET-COMMAND-OUTSIDE\n');
    await symlink(path.join(outside, 'leak.md'), path.join(world.root, '.claude/commands/leak.md'));
    await symlink(outside, path.join(world.root, '.claude/commands/elsewhere'));
    execFileSync('mkfifo', [path.join(world.root, '.cursor/commands/hang.md')]);
    await mkdir(path.join(world.root, '.claude/commands/a/b/c/d'), { recursive: true });
    await writeFile(path.join(world.root, '.claude/commands/a/b/c/deep.md'), 'three levels\n');
    await writeFile(path.join(world.root, '.claude/commands/a/b/c/d/deeper.md'), 'four levels\n');
    const { commands, problems } = await catalogs(world).commands.list();
    expect(JSON.stringify(commands)).not.toContain('SECRET-COMMAND-OUTSIDE');
    expect(commands.map((c) => c.name)).toContain('a:b:c:deep');
    expect(commands.map((c) => c.name)).not.toContain('a:b:c:d:deeper');
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: '.claude/commands/leak.md', reason: 'is a link out of the workspace, so it is not read' },
        { path: '.claude/commands/elsewhere', reason: 'is a link out of the workspace, so it is not read' },
        { path: '.cursor/commands/hang.md', reason: 'is not a file or a folder (a FIFO, socket or device), so it is not read' },
      ]),
    );
  });
});

describe('listSlashCommands: the one list for the picker, the settings and ACP', () => {
  it('built-ins, commands, skills; shadowed ones last and marked', async () => {
    world = await skillsWorld();
    const { commands } = await listSlashCommands(catalogs(world));
    const usable = commands.filter((c) => !c.shadowed_by);
    expect(usable.slice(0, 5).map((c) => [c.name, c.source])).toEqual(BUILTIN_NAMES.map((n) => [n, 'built-in']));
    expect(usable.filter((c) => c.kind === 'skill').map((c) => c.name)).toEqual(['all-powerful', 'api-guide', 'colon-trap', 'crlf-skill', 'my-notes', 'no-name', 'pdf-tools', 'shared-name', 'tidy-commits']);
    expect(commands.find((c) => c.name === 'review-pr')).toEqual({
      name: 'review-pr',
      kind: 'command',
      source: 'repository',
      location: '.claude/commands',
      path: '.claude/commands/review-pr.md',
      description: 'Review a pull request with a priority',
      argument_hint: '[pr-number] [priority]',
      dialect: 'claude',
      // `[pr-number] [priority]` is no YAML; the hint is kept as written and the file read line by line.
      problems: [expect.stringMatching(/^the front matter is not valid YAML \(line 3, column 28: .*\), so it was read line by line/)],
    });
    expect(commands.find((c) => c.name === 'api-guide')).toMatchObject({ kind: 'skill', path: '.claude/skills/api-guide/SKILL.md', problems: [expect.stringMatching(/over the specification's 1,024/)] });
    const last = commands.slice(-2).map((c) => [c.kind, c.name, c.source]);
    expect(last).toEqual([
      ['command', 'commit', 'repository'],
      ['skill', 'shared-name', 'repository'],
    ]);
  });
});
