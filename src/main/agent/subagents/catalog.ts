// The agent types a session may start: Loupe's two built-ins and the definitions the repository
// and the person wrote (services/agents/definitions.ts). A file may redefine a built-in's words
// and tools, never its nature: `explore` only reads, whatever its file says.
import type { AgentDefinition, DefinitionList } from '../../services/agents/definitions';

export const EXPLORE = 'explore';
export const GENERAL = 'general';

const BUILT_IN: AgentDefinition[] = [
  {
    name: EXPLORE,
    description:
      'Read-only: searches and reads the codebase to answer one question (where something is defined, how a feature works, which files matter). Give it a precise question; it answers with what it found, with paths and line numbers. It cannot change anything.',
    tools: null,
    disallowedTools: [],
    deniedKinds: [],
    readOnly: true,
    instructions: [
      'You explore the codebase to answer one question. Search broadly first, then read what matters.',
      'Answer with what you found: the files and line numbers, short quotes where they help, and what you could not find.',
      'You only read: nothing you do may change the workspace.',
    ].join('\n'),
    dialect: 'loupe',
    path: '(built in)',
  },
  {
    name: GENERAL,
    description:
      'General-purpose: carries out a self-contained task with your own tools (search, read, edit, run commands) and reports what it did. Use it for multi-step work you can describe completely in the prompt.',
    tools: null,
    disallowedTools: [],
    deniedKinds: [],
    readOnly: false,
    instructions: 'Do the task completely, then answer with what you changed (files and why) and how you checked it.',
    dialect: 'loupe',
    path: '(built in)',
  },
];

export interface AgentCatalog {
  definitions: AgentDefinition[];
  problems: DefinitionList['problems'];
  find(name: string | undefined): AgentDefinition | undefined;
}

/** The built-ins under the files' definitions: a file named like one replaces its words, never `explore`'s read-only nature. */
export function catalogOf(list: DefinitionList): AgentCatalog {
  const byName = new Map<string, AgentDefinition>();
  for (const d of list.definitions) byName.set(d.name.toLowerCase(), d.name.toLowerCase() === EXPLORE ? { ...d, name: EXPLORE, readOnly: true } : d);
  for (const b of BUILT_IN) if (!byName.has(b.name)) byName.set(b.name, b);
  const definitions = [...BUILT_IN.map((b) => byName.get(b.name)!), ...[...byName.values()].filter((d) => d.name !== EXPLORE && d.name !== GENERAL)];
  return {
    definitions,
    problems: list.problems,
    find: (name) => {
      const key = (name ?? GENERAL).trim().toLowerCase();
      // Claude Code's name for its general agent, as models and instructions written for it say it.
      return byName.get(key) ?? (key === 'general-purpose' ? byName.get(GENERAL) : undefined);
    },
  };
}
