// The environment an agent's command runs in: the user's, minus what would change how the
// shell starts, plus what keeps every tool non-interactive (stdin is closed; nobody can
// answer a pager, an editor or a credential prompt).
const DROP = ['BASH_ENV', 'ENV', 'PROMPT_COMMAND', 'ELECTRON_RUN_AS_NODE', 'ELECTRON_NO_ATTACH_CONSOLE'];

export const COMMAND_MARKER = 'LOUPE_COMMAND_ID';

export function commandEnv(commandId: string, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const k of DROP) delete env[k];
  return {
    ...env,
    PAGER: 'cat',
    GIT_PAGER: 'cat',
    GIT_TERMINAL_PROMPT: '0',
    GIT_EDITOR: 'true',
    GCM_INTERACTIVE: 'never',
    DEBIAN_FRONTEND: 'noninteractive',
    CI: '1',
    TERM: 'dumb',
    NO_COLOR: '1',
    // Inherited by every descendant, even one that double-forks into its own session, so the
    // reaper can still find it after it has left the process tree.
    [COMMAND_MARKER]: commandId,
  };
}
