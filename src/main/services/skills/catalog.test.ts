import { execFileSync } from 'node:child_process';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { skillsWorld, type SkillsWorld } from '../../../../test/support/skillsFixture';
import { SkillCatalog } from './catalog';

let world: SkillsWorld | null = null;
afterEach(async () => {
  await world?.cleanup();
  world = null;
});

const catalogOf = (w: SkillsWorld, readRules?: () => Promise<(rel: string) => string | null>) => new SkillCatalog({ root: w.root, home: w.home, configDir: w.configDir, ...(readRules ? { readRules } : {}) });

describe('SkillCatalog over the test repository', () => {
  it('lists every skill as its author meant it, the ones that break the specification included', async () => {
    world = await skillsWorld();
    const { skills, shadowed, problems } = await catalogOf(world).list();
    expect(problems).toEqual([]);
    const byName = Object.fromEntries(skills.map((s) => [s.name, s]));
    expect(Object.keys(byName).sort()).toEqual(['all-powerful', 'api-guide', 'colon-trap', 'crlf-skill', 'my-notes', 'no-name', 'pdf-tools', 'shared-name', 'tidy-commits']);

    // Over the 1,024 characters: the first 1,024 kept, the cut said.
    const api = byName['api-guide'];
    expect(api.description).toHaveLength(1024);
    expect(api.description.startsWith('Reference for the Widgets HTTP API')).toBe(true);
    expect(api.problems.some((p) => /description is 1,\d{3} characters, over the specification's 1,024/.test(p))).toBe(true);
    expect(api.license).toBe('Complete terms in LICENSE.txt');
    expect(api.scope).toBe('repository');
    expect(api.source).toBe('.claude/skills');

    // An unquoted colon: read line by line, the whole description kept, a warning.
    const trap = byName['colon-trap'];
    expect(trap.description).toBe('Use when: the user asks for a changelog entry; also when: they mention release notes');
    expect(trap.metadata).toEqual({ owner: 'docs team', version: '2' });
    expect(trap.problems.some((p) => /not valid YAML .*read line by line/.test(p))).toBe(true);

    // No name: the folder's; unknown fields kept.
    const noName = byName['no-name'];
    expect(noName.problems.some((p) => /no name, so it is called by its folder's/.test(p))).toBe(true);
    expect(noName.fields).toMatchObject({ version: 3, 'user-invocable': true });

    expect(byName['crlf-skill'].description).toBe('Written on Windows, with a byte-order mark and CRLF line ends.');
    expect(byName['pdf-tools']).toMatchObject({ license: 'Apache-2.0', compatibility: 'Needs python3 and the pypdf package', allowedTools: ['Bash(python3:*)', 'Read'], metadata: { author: 'fixture-org', version: '1.0' } });
    expect(byName['all-powerful'].allowedTools).toEqual(['Bash(*)', 'Edit', 'WebFetch']);

    // The person's own skill of the same name wins, with a notice on both.
    expect(byName['shared-name'].scope).toBe('personal');
    expect(shadowed.map((s) => [s.name, s.scope, s.source])).toEqual([['shared-name', 'repository', '.opencode/skills']]);
    expect(shadowed[0].problems.join(' ')).toMatch(/your own skill .* is used instead: a repository cannot replace a skill of yours/);
    expect(byName['my-notes']).toMatchObject({ scope: 'personal', source: '~/.claude/skills' });
    expect(byName['tidy-commits']).toMatchObject({ scope: 'personal', source: '~/.agents/skills', description: 'Squash fixups: keep one commit per change' });
  });

  it('loads a body and lists its folder (subfolders, not the SKILL.md twice), fresh from disk', async () => {
    world = await skillsWorld();
    const catalog = catalogOf(world);
    const api = (await catalog.find('api-guide'))!;
    const loaded = await catalog.load(api);
    expect(loaded.body).toContain('MARK-API-GUIDE-BODY');
    expect(loaded.body.startsWith('# Working with the Widgets API')).toBe(true);
    expect(loaded.files).toEqual(['SKILL.md', 'LICENSE.txt', 'python/client.md', 'references/endpoints.md', 'shared/errors.md']);
    await writeFile(path.join(world.root, '.claude/skills/api-guide/SKILL.md'), '---\nname: api-guide\ndescription: changed\n---\nNEW BODY\n');
    expect((await catalog.find('api-guide'))!.description).toBe('changed');
    expect((await catalog.load((await catalog.find('api-guide'))!)).body).toBe('NEW BODY\n');
    expect(await catalog.find('API-GUIDE')).not.toBeNull();
  });

  it('never reads through a link out of the workspace, a FIFO, or a file the read rules keep from the agent', async () => {
    world = await skillsWorld({ home: false });
    const outside = path.join(world.dir, 'outside');
    await mkdir(path.join(outside, 'stolen'), { recursive: true });
    await writeFile(path.join(outside, 'stolen', 'SKILL.md'), '---\nname: stolen\ndescription: SECRET-OUTSIDE\n---\nSECRET-OUTSIDE\n');
    await symlink(path.join(outside, 'stolen'), path.join(world.root, '.claude/skills/stolen'));
    await mkdir(path.join(world.root, '.claude/skills/fifo'));
    execFileSync('mkfifo', [path.join(world.root, '.claude/skills/fifo/SKILL.md')]);
    // A link inside the workspace is followed, and the skill it leads to listed once.
    await symlink(path.join(world.root, '.agents/skills/no-name'), path.join(world.root, '.claude/skills/alias'));
    const denied = async () => (rel: string) => (rel === '.github/skills/pdf-tools/SKILL.md' ? 'is denied to the agent by the read rules, so it is not read' : null);
    const t0 = Date.now();
    const { skills, problems } = await catalogOf(world, denied).list();
    expect(Date.now() - t0).toBeLessThan(60_000);
    const names = skills.map((s) => s.name);
    expect(names).not.toContain('stolen');
    expect(names).not.toContain('pdf-tools');
    expect(names.filter((n) => n === 'no-name')).toHaveLength(1);
    expect(JSON.stringify(skills)).not.toContain('SECRET-OUTSIDE');
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: '.claude/skills/stolen', reason: 'is a link out of the workspace, so it is not read' },
        { path: '.claude/skills/fifo/SKILL.md', reason: 'is not a file or a folder (a FIFO, socket or device), so it is not read' },
        { path: '.github/skills/pdf-tools/SKILL.md', reason: 'is denied to the agent by the read rules, so it is not read' },
      ]),
    );
  });

  it('generated links anywhere on the way: a repository skill is read only from inside the workspace', async () => {
    world = await skillsWorld({ home: false });
    const w = world;
    const outside = path.join(w.dir, 'outside');
    await mkdir(path.join(outside, 'skills', 'evil'), { recursive: true });
    await writeFile(path.join(outside, 'skills', 'evil', 'SKILL.md'), '---\nname: evil\ndescription: SECRET-LINKED\n---\nSECRET-LINKED\n');
    await writeFile(path.join(outside, 'SKILL.md'), '---\nname: evil-file\ndescription: SECRET-LINKED\n---\nSECRET-LINKED\n');
    const folders = ['.claude/skills', '.agents/skills', '.github/skills', '.opencode/skills'];
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...folders), fc.constantFrom('folder', 'skill', 'file'), fc.boolean(), async (folder, where, inside) => {
        const tag = `l${n++}`;
        const target = inside ? path.join(w.root, 'src') : where === 'folder' ? path.join(outside, 'skills') : where === 'skill' ? path.join(outside, 'skills', 'evil') : path.join(outside, 'SKILL.md');
        const made: string[] = [];
        if (where === 'folder') {
          // The whole skills folder a link: moved aside, then put back.
          await rm(path.join(w.root, folder), { recursive: true, force: true });
          await mkdir(path.dirname(path.join(w.root, folder)), { recursive: true });
          await symlink(target, path.join(w.root, folder));
          made.push(path.join(w.root, folder));
        } else if (where === 'skill') {
          await mkdir(path.join(w.root, folder), { recursive: true });
          await symlink(target, path.join(w.root, folder, tag));
          made.push(path.join(w.root, folder, tag));
        } else {
          await mkdir(path.join(w.root, folder, tag), { recursive: true });
          await symlink(target, path.join(w.root, folder, tag, 'SKILL.md'));
          made.push(path.join(w.root, folder, tag));
        }
        try {
          const { skills } = await catalogOf(w).list();
          for (const s of skills.filter((x) => x.scope === 'repository')) {
            expect(s.file.startsWith(`${w.root}/`)).toBe(true);
            expect(s.dir.startsWith(`${w.root}/`)).toBe(true);
          }
          expect(JSON.stringify(skills)).not.toContain('SECRET-LINKED');
        } finally {
          for (const m of made) await rm(m, { recursive: true, force: true });
          await mkdir(path.join(w.root, folder), { recursive: true });
        }
      }),
      { numRuns: 40 },
    );
  });
});
