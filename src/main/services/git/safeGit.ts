import { simpleGit, type SimpleGit } from 'simple-git';

/**
 * Config that keeps a hostile repository from running code when we merely look at it:
 * no hooks, no fsmonitor daemon, no external diff/textconv, no credential prompts.
 */
export const SAFE_GIT_CONFIG = [
  'core.hooksPath=/dev/null',
  'core.fsmonitor=false',
  'core.untrackedCache=false',
  'diff.external=',
  'core.pager=cat',
  'credential.helper=',
] as const;

/** `extraConfig` may only neutralise more (e.g. the repository's own filter drivers). */
export function safeGit(cwd: string, signal?: AbortSignal, extraConfig: readonly string[] = []): SimpleGit {
  return simpleGit({
    baseDir: cwd,
    config: [...SAFE_GIT_CONFIG, ...extraConfig],
    // simple-git refuses these keys outright; we only ever set them to their inert values.
    unsafe: {
      allowUnsafeHooksPath: true,
      allowUnsafeFsMonitor: true,
      allowUnsafeDiffExternal: true,
      allowUnsafePager: true,
      allowUnsafeCredentialHelper: true,
      allowUnsafeFilter: true,
    },
    abort: signal,
    timeout: { block: 30_000 },
    // simple-git strips PAGER, EDITOR and GIT_* from the inherited environment by default.
  });
}
