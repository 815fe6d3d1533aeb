// What a git process may inherit and read when Loupe runs it. A cloned repository controls
// its own .git/config (and whatever that includes), so every setting git knows that names a
// program to run is overridden at the highest-priority scope, the command line's, on every
// call. Overrides travel as GIT_CONFIG_KEY_n/VALUE_n rather than `-c key=value` because a
// driver name may contain `=` (`filter=a=b` in .gitattributes), which `-c` would split wrongly.

/** Settings that run programs, set to values that run nothing. */
export const NEUTRAL_CONFIG: readonly (readonly [string, string])[] = [
  ['core.fsmonitor', 'false'],
  ['core.hooksPath', '/dev/null'],
  ['core.pager', 'cat'],
  ['core.editor', ':'],
  ['sequence.editor', ':'],
  ['core.askPass', ''],
  ['core.sshCommand', 'false'],
  ['diff.external', ''],
  ['diff.ignoreSubmodules', 'all'],
  // An empty helper resets the list, so no repository-chosen helper is asked for secrets.
  ['credential.helper', ''],
  ['protocol.allow', 'never'],
  ['submodule.recurse', 'false'],
  ['status.submoduleSummary', 'false'],
  ['fetch.recurseSubmodules', 'false'],
  ['commit.gpgSign', 'false'],
  ['tag.gpgSign', 'false'],
  ['log.showSignature', 'false'],
  ['merge.verifySignatures', 'false'],
  ['gpg.program', 'false'],
  ['gpg.openpgp.program', 'false'],
  ['gpg.x509.program', 'false'],
  ['gpg.ssh.program', 'false'],
  ['gpg.ssh.defaultKeyCommand', ''],
  ['uploadpack.packObjectsHook', ''],
  ['gc.auto', '0'],
  ['maintenance.auto', 'false'],
];

/**
 * Settings that only make git faster on big trees and name no program. The untracked cache
 * keeps, in the index, which folders held which untracked files and their mtimes, so status
 * reads only the folders that changed; it is built for `-uall` only when
 * status.showUntrackedFiles says `all` too. fsmonitor, the other big saving, runs a program
 * and stays off (NEUTRAL_CONFIG).
 */
export const PERFORMANCE_CONFIG: readonly (readonly [string, string])[] = [
  ['core.untrackedCache', 'true'],
  ['status.showUntrackedFiles', 'all'],
  ['core.preloadIndex', 'true'],
  ['index.threads', 'true'],
];

/** The variables git reads that could point it at a program, a pager or another repository. */
const DROPPED = /^(GIT_(?!AUTHOR_(NAME|EMAIL|DATE)$|COMMITTER_(NAME|EMAIL|DATE)$)|EDITOR$|VISUAL$|PAGER$|LESS|SSH_ASKPASS$|SSH_AUTH_SOCK$)/;

/** Neutral settings for the driver kinds a repository names in .gitattributes. */
const DRIVER_KEYS: Record<string, readonly (readonly [string, string])[]> = {
  filter: [['clean', ''], ['smudge', ''], ['process', ''], ['required', 'false']],
  // An empty command fails closed ("cannot run"): nothing the repository chose runs.
  diff: [['command', ''], ['textconv', ''], ['cachetextconv', 'false']],
  merge: [['driver', '']],
};

/** Config scopes that are the person's own (their ~/.gitconfig, e.g. git-lfs): trusted. */
const TRUSTED_SCOPES = new Set(['global', 'system']);

/** Which config the runner lists to find the drivers it must neutralise. */
export const DRIVER_LISTING = ['config', '--show-scope', '--null', '--get-regexp', '^(filter|diff|merge)\\.'] as const;

/**
 * Overrides for every filter, diff and merge driver defined outside the person's global
 * config, from `git config --show-scope --null --get-regexp` output (`scope\0key\nvalue\0`).
 */
export function driverOverrides(listing: string): [string, string][] {
  const out = new Map<string, string>();
  const fields = listing.split('\0');
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const scope = fields[i];
    const key = fields[i + 1].split('\n')[0];
    if (TRUSTED_SCOPES.has(scope)) continue;
    const m = /^(filter|diff|merge)\.(.+)\.([^.]+)$/s.exec(key);
    if (!m) continue;
    for (const [k, v] of DRIVER_KEYS[m[1]]) out.set(`${m[1]}.${m[2]}.${k}`, v);
  }
  return [...out];
}

/** The environment of every git process: inherited variables minus git's own, plus the overrides. */
export function gitEnv(config: readonly (readonly [string, string])[], extra: Record<string, string> = {}, optionalLocks = false): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !DROPPED.test(k)) env[k] = v;
  Object.assign(env, {
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    // Set and empty: git then asks neither core.askPass nor SSH_ASKPASS.
    GIT_ASKPASS: '',
    SSH_ASKPASS: '',
    GIT_PROTOCOL_FROM_USER: '0',
    GIT_PAGER: 'cat',
    PAGER: 'cat',
    GIT_EDITOR: ':',
    GIT_SEQUENCE_EDITOR: ':',
    // Off unless asked: a background status must not hold the index lock a person's git needs.
    GIT_OPTIONAL_LOCKS: optionalLocks ? '1' : '0',
    GIT_CONFIG_COUNT: String(config.length),
  });
  config.forEach(([k, v], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = k;
    env[`GIT_CONFIG_VALUE_${i}`] = v;
  });
  // Only what Loupe itself chooses (a private index for a commit) is added back.
  for (const [k, v] of Object.entries(extra)) {
    if (!/^GIT_(INDEX_FILE|AUTHOR_|COMMITTER_)/.test(k)) throw new Error(`git runner: ${k} may not be passed to git`);
    env[k] = v;
  }
  return env;
}

/** Subcommands that print diffs: never through a repository's textconv or external diff. */
const DIFFING = new Set(['diff', 'log', 'show', 'whatchanged', 'format-patch']);
/** Options that would make git run a repository's drivers on content we read. */
const REFUSED = /^--(textconv|filters|ext-diff)$/;

/** `args` with the per-subcommand guards git has no config for, inserted after the subcommand. */
export function hardenArgs(args: readonly string[]): string[] {
  for (const a of args) if (REFUSED.test(a)) throw new Error(`git runner: ${a} would run the repository's own drivers`);
  const at = args.findIndex((a) => !a.startsWith('-'));
  if (at === -1) return [...args];
  const sub = args[at];
  const guards = DIFFING.has(sub) ? ['--no-textconv', '--no-ext-diff'] : sub === 'status' ? ['--ignore-submodules=all'] : sub === 'commit-tree' ? ['--no-gpg-sign'] : [];
  return [...args.slice(0, at + 1), ...guards, ...args.slice(at + 1)];
}

/**
 * Subcommands that neither read work-tree content nor render diffs: no driver can run in them.
 * (`check-ignore` reads ignore files and the index only; a folder's direct listing runs it before
 * its first screen, where listing the drivers first was one more git on the way.)
 */
const DRIVER_FREE = new Set(['rev-parse', 'ls-files', 'write-tree', 'commit-tree', 'update-ref', 'cat-file', 'config', 'symbolic-ref', 'show-ref', 'for-each-ref', 'check-ignore']);

/**
 * Whether a call could reach a filter, textconv or diff driver, so the repository's drivers
 * must be listed and neutralised first. Unknown subcommands count as able to.
 */
export function mayRunDrivers(args: readonly string[]): boolean {
  const sub = args.find((a) => !a.startsWith('-'));
  if (!sub) return true;
  if (DRIVER_FREE.has(sub)) return false;
  if (sub === 'hash-object') return !args.includes('--no-filters');
  // Without -u the index changes and the work tree is never written (no smudge).
  if (sub === 'read-tree') return args.some((a) => a === '-u' || a.startsWith('--reset'));
  return true;
}
