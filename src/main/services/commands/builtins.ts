// Loupe's own slash commands. They join the custom commands in the composer's list and in
// `loupe run "/name"`; what each does is the host's (host/slashCommands.ts). A command file of the
// same name is not used: a built-in cannot be replaced by a file, least of all a repository's.
export interface BuiltinCommand {
  name: string;
  description: string;
  argumentHint?: string;
}

export const BUILTIN_COMMANDS: readonly BuiltinCommand[] = [
  { name: 'undo', description: "Undo the last request's changes in this session (the app shows them first)" },
  { name: 'plan', description: 'Plan without changing anything: the words after /plan go in plan mode (alone, it switches the composer to plan)', argumentHint: '[request]' },
  { name: 'compact', description: 'Summarise the conversation so far, to free the context window' },
  { name: 'clear', description: 'Start a new session; this one is kept in the session list' },
  { name: 'skills', description: 'List the skills and commands in reach, where each comes from and what is wrong with it' },
];

export const BUILTIN_NAMES = BUILTIN_COMMANDS.map((c) => c.name);
