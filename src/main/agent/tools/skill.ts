// skill: loads one of the skills the system prompt lists (docs/architecture.md, "Skills and
// commands"): its instructions, where its folder is, and the files in it, which the agent reads
// on demand without asking (a folder of the person's outside the workspace included). A skill
// grants nothing by itself: its scripts run through the command tool under the rules and the
// sandbox; its `allowed-tools` apply for the rest of this request only as the gate decides (the
// person's own as written, a repository's once trusted and approved on a card).
import { z } from 'zod';
import { InvalidArgumentError } from '../../errors';
import { grantDigest, rulesOfAllowedTools } from '../../services/skills/allowedTools';
import { defineTool, success } from './types';

const schema = z.object({
  name: z.string().min(1).describe('The skill to load, as the list of skills names it.'),
});

const outputSchema = z.looseObject({
  name: z.string(),
  scope: z.enum(['personal', 'repository']),
  source: z.string().describe('The skills folder it was found in.'),
  dir: z.string().describe('Its folder: workspace-relative for a repository skill, absolute for the person\u2019s own.'),
  files: z.array(z.string()).describe('Its files, relative to its folder.'),
  more_files: z.number().int(),
  allowed_tools: z.looseObject({ entries: z.array(z.string()), applied: z.boolean(), why: z.string() }).nullable(),
  problems: z.array(z.string()),
});

export const skillTool = defineTool({
  name: 'skill',
  title: 'Load a skill',
  effect: 'read',
  permission: null,
  correlated: false,
  idempotent: true,
  openWorld: false,
  summary: (args) => args.name,
  outputSchema,
  description:
    'Load a skill listed under "Skills": its instructions, its folder and the files in it. Load it when the task matches its description, then follow it. ' +
    'Its files are read on demand by the paths given (no approval needed in its own folder); its scripts run as commands under the usual rules.',
  guidance: 'Load a skill before doing a task its description matches; do not guess what it says.',
  schema,
  async run(args, ctx) {
    const catalog = ctx.skills;
    const skill = catalog ? await catalog.find(args.name) : null;
    if (!catalog || !skill) {
      const names = catalog ? (await catalog.list()).skills.filter((s) => !s.personOnly).map((s) => s.name) : [];
      throw new InvalidArgumentError(names.length ? `No skill named "${args.name}". The skills here: ${names.slice(0, 60).join(', ')}${names.length > 60 ? ', …' : ''}.` : `No skill named "${args.name}": there are no skills here.`);
    }
    if (skill.personOnly) throw new InvalidArgumentError(`The skill "${skill.name}" is for the person to call (/${skill.name}); its author turned off loading it by the agent.`);
    const loaded = await catalog.load(skill);
    // The folder as the read tool takes it: workspace-relative inside, absolute (with ~ shown) outside.
    const dir = skill.rel ?? skill.dir;
    let granted: { entries: string[]; applied: boolean; why: string } | null = null;
    if (skill.allowedTools?.length) {
      const { rules, ignored } = rulesOfAllowedTools(skill.allowedTools);
      const where = skill.shownDir;
      const outcome = await ctx.permissions.grant({
        label: `skill "${skill.name}" (${where})`,
        scope: skill.scope,
        key: `skill:${skill.name}`,
        digest: grantDigest(where, skill.allowedTools),
        entries: skill.allowedTools,
        rules,
        ignored,
        signal: ctx.signal,
      });
      granted = { entries: skill.allowedTools, ...outcome };
    }
    const listing = loaded.files.map((f) => `- ${f}`).join('\n') + (loaded.more ? `\n- … ${loaded.more} more files` : '');
    const output = [
      `<skill name="${skill.name}">`,
      loaded.body.trim(),
      '</skill>',
      '',
      `Skill folder: ${dir}${skill.rel === undefined ? ' (outside the workspace; read its files by their absolute paths)' : ''}. Paths in the skill are relative to this folder.`,
      `Files:\n${listing}`,
      ...(granted ? ['', `allowed-tools (${granted.entries.join(', ')}): ${granted.why}.`] : []),
    ].join('\n');
    return success(output, {
      name: skill.name,
      scope: skill.scope,
      source: skill.source,
      dir: skill.rel ?? skill.dir,
      files: loaded.files,
      more_files: loaded.more,
      allowed_tools: granted,
      problems: skill.problems,
    });
  },
});
