// The instruction files as the prompt gives them: general before specific (the person's own
// file, the root's, Cursor's always-on and matching rules, then folders from the root down), so
// the more specific reads last and wins, as Codex orders them; all of it within one budget,
// shared so that only the largest files are cut, each cut said where it happens.
import os from 'node:os';
import type { InstructionFileView, SkippedInstructionView } from '../../../shared/contract';
import { cutAtLine, fitBudget } from '../../services/instructions/budget';
import type { Applies, InstructionFile, SkippedInstruction } from '../../services/instructions/instructionFiles';

/** Characters of instruction text the prompt carries at most (about 8,000 tokens). */
export const INSTRUCTIONS_BUDGET = 32_000;
const MAX_ON_REQUEST = 50;

const RANK: Record<Applies['when'], number> = { always: 1, globs: 2, folder: 3, on_request: 4 };
const rank = (f: InstructionFile) => (f.kind === 'personal' ? 0 : RANK[f.applies.when]);

export function describeApplies(a: Applies): string {
  switch (a.when) {
    case 'always':
      return 'always';
    case 'folder':
      return `for work in ${a.folder}/`;
    case 'globs':
      return `for files matching ${a.globs.join(', ')}`;
    case 'on_request':
      return `on request: ${a.description}`;
  }
}

const shown = (p: string) => {
  const home = os.homedir();
  return home && p.startsWith(`${home}/`) ? `~${p.slice(home.length)}` : p;
};

function heading(f: InstructionFile): string {
  if (f.kind === 'personal') return `## ${shown(f.path)} (the person's own, for every project)`;
  return f.applies.when === 'always' ? `## ${f.path}` : `## ${f.path} (${describeApplies(f.applies)})`;
}

export function instructionsText(
  found: { files: InstructionFile[]; skipped: SkippedInstruction[] },
  budget = INSTRUCTIONS_BUDGET,
): { text: string; files: InstructionFileView[]; skipped: SkippedInstructionView[] } {
  const ordered = found.files.map((f, i) => ({ f, i })).sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i).map((x) => x.f);
  const withText = ordered.filter((f) => f.applies.when !== 'on_request' && f.text.trim());
  const onRequest = ordered.filter((f) => f.applies.when === 'on_request').slice(0, MAX_ON_REQUEST);
  const bodies = withText.map((f) => f.text.trim());
  const keep = fitBudget(
    bodies.map((b) => b.length),
    budget,
  );
  const files: InstructionFileView[] = [];
  const sections: string[] = [];
  withText.forEach((f, i) => {
    const kept = cutAtLine(bodies[i], keep[i]);
    const cut = bodies[i].length - kept.length;
    const note = cut > 0 ? `\n[… ${cut} more characters of ${f.path} were cut to fit the ${budget}-character budget for instructions; read the file for the rest.]` : '';
    sections.push(`${heading(f)}\n${kept.trimEnd()}${note}`);
    files.push({ path: f.path, kind: f.kind, applies: describeApplies(f.applies), chars: kept.length, total_chars: bodies[i].length });
  });
  if (onRequest.length) {
    const lines = onRequest.map((f) => `- ${f.path}: ${f.applies.when === 'on_request' ? f.applies.description.slice(0, 200) : ''}`);
    sections.push(`## Rules to read when they are relevant to the task\n${lines.join('\n')}`);
    for (const f of onRequest) files.push({ path: f.path, kind: f.kind, applies: describeApplies(f.applies), chars: 0, total_chars: 0 });
  }
  const skipped = found.skipped.map((s) => ({ path: s.path, reason: s.reason }));
  if (!sections.length) return { text: '', files, skipped };
  const intro =
    '# Instructions\nThe project’s and the person’s standing instructions. Follow them. Where two disagree, the more specific wins: ' +
    'a folder’s file over one nearer the root for work in that folder, the project’s files over the person’s own.';
  return { text: [intro, ...sections].join('\n\n'), files, skipped };
}
