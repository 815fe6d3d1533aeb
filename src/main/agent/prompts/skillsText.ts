// The skills in reach as the system prompt lists them (docs/architecture.md, "What the agent is
// told"): each name with its description, the bodies left for the skill tool to load when a task
// calls for one. The list shares one character budget the way instruction files share theirs: a
// description shorter than an even share keeps all of it, the longest are cut, each cut marked;
// when even the names do not fit, the list ends with how many more there are.
import { fitBudget } from '../../services/instructions/budget';

/** Characters the skills list may take in the prompt (about 3,000 tokens). */
export const SKILLS_BUDGET = 12_000;

export interface SkillBrief {
  name: string;
  description: string;
  scope: 'personal' | 'repository';
}

const oneLine = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** `tool`: the name of the tool that loads a skill (the section exists only where it does). */
export function skillsText(skills: readonly SkillBrief[], tool: string, budget = SKILLS_BUDGET): { text: string; listed: number; shortened: number } {
  if (!skills.length) return { text: '', listed: 0, shortened: 0 };
  const intro =
    '# Skills\n' +
    `Folders of instructions (some with scripts and references) for particular tasks, the person's own or this repository's. ` +
    `When a task matches a skill's description, call \`${tool}\` with its name before you start, and follow what it says.`;
  const head = (s: SkillBrief) => `- ${s.name}${s.scope === 'personal' ? ' (yours)' : ''}: `;
  // Names first: as many as fit with room for a note, then the descriptions share what is left.
  const tail = 200;
  let room = budget - intro.length - tail;
  const listed: SkillBrief[] = [];
  for (const s of skills) {
    const cost = head(s).length + 1;
    if (cost > room) break;
    listed.push(s);
    room -= cost;
  }
  const descriptions = listed.map((s) => oneLine(s.description) || '(no description)');
  const keep = fitBudget(
    descriptions.map((d) => d.length),
    room,
  );
  let shortened = 0;
  const lines = listed.map((s, i) => {
    const d = descriptions[i];
    if (keep[i] >= d.length) return head(s) + d;
    shortened++;
    return `${head(s)}${d.slice(0, Math.max(0, keep[i] - 1))}…`;
  });
  const notes = [
    shortened ? `[${shortened} descriptions were shortened to fit this list's ${budget.toLocaleString('en-US')}-character budget; loading a skill shows all of it.]` : '',
    listed.length < skills.length ? `[${skills.length - listed.length} more skills are not listed for lack of room; ${tool} names every skill when given a name it does not know.]` : '',
  ].filter(Boolean);
  return { text: [intro, ...lines, ...notes].join('\n'), listed: listed.length, shortened };
}
