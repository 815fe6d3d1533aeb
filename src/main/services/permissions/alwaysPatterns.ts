// The rule an "allow always" answer writes: wide enough to stop asking about the same kind
// of thing, narrow enough to read on the card and mean what it says.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { PermissionKind, PermissionRule } from './types';

/** How many words name the action: `git status`, `npm run build`, `docker compose up`. */
const ARITY: Record<string, number> = {
  git: 2, cargo: 2, go: 2, kubectl: 2, pip: 2, pip3: 2, poetry: 2, uv: 2, brew: 2, apt: 2, 'apt-get': 2,
  systemctl: 2, dotnet: 2, mvn: 2, gradle: 2, npx: 2, pnpx: 2, bunx: 2, deno: 2, rustup: 2, make: 2,
  npm: 2, yarn: 2, pnpm: 2, bun: 2, docker: 2, gh: 3,
};
/** Sub-commands that take one more word: `npm run <script>`, `uv run <tool>`, `python -m <module>`. */
const RUNNERS = new Set([
  'npm run', 'yarn run', 'pnpm run', 'bun run', 'npm exec', 'pnpm exec', 'yarn exec', 'docker compose', 'go tool',
  'uv run', 'poetry run', 'python -m', 'python3 -m', 'deno run', 'cargo run',
]);
/** Interpreters: the script is the action, so it stays in the rule (`node x.js *`, never `node *`). */
const INTERPRETERS = new Set(['node', 'python', 'python3', 'ruby', 'perl', 'php', 'bash', 'sh', 'zsh', 'tsx', 'ts-node']);
/**
 * Commands whose target is the whole risk: their rule is the exact command, never a prefix,
 * so "always" for `rm -rf dist` cannot come to mean `rm -rf ~`.
 */
const EXACT = new Set([
  'rm', 'rmdir', 'mv', 'dd', 'chmod', 'chown', 'chgrp', 'kill', 'killall', 'pkill', 'shred', 'truncate', 'sudo',
  'su', 'doas', 'curl', 'wget', 'eval', 'exec', 'xargs', 'find', 'ln', 'mkfs', 'mount', 'umount', 'env', 'nohup',
  'timeout', 'scp', 'rsync', 'ssh',
]);
const EXACT_SUB: Record<string, Set<string>> = {
  git: new Set(['push', 'reset', 'clean', 'checkout', 'restore', 'rebase', 'branch', 'tag', 'rm', 'mv', 'config', 'filter-branch', 'gc', 'reflog', 'update-ref', 'worktree', 'submodule', 'remote', 'switch', 'stash']),
  npm: new Set(['publish', 'unpublish', 'deprecate', 'owner', 'token', 'login', 'adduser']),
  docker: new Set(['rm', 'rmi', 'kill', 'system', 'volume', 'run', 'exec']),
  kubectl: new Set(['delete', 'apply', 'exec', 'edit', 'patch', 'scale']),
  cargo: new Set(['publish']),
  gh: new Set(['repo', 'release', 'secret', 'auth', 'api']),
};
/** Options that take the next word as their value, by program (`git -C dir log`). */
const VALUED: Record<string, Set<string>> = {
  git: new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace']),
  npm: new Set(['--prefix', '-w', '--workspace']), pnpm: new Set(['--filter', '-F', '-C', '--dir']),
  yarn: new Set(['--cwd']), make: new Set(['-C', '-f', '-j']), docker: new Set(['-H', '--context']),
};
/** Package runners whose next word is a package name, which may hold `/` or `@`. */
const WRAPPERS = new Set(['npx', 'pnpx', 'bunx']);
const ENV = /^[A-Za-z_][A-Za-z0-9_]*=/;
/** A word that is data, not the name of an action: a path, number, hash, URL or temp name. */
const LITERAL = /[/.~$]|^\d+$|^[0-9a-f]{7,40}$|:\/\/|^tmp/i;

/**
 * The "allow always" rules for one simple command: none when its own words hold a `*`, since a
 * rule cannot say a literal star and `rm -rf *.log` as a rule would also allow `rm -rf / x.log`.
 */
export function alwaysCommandRules(kind: PermissionKind, text: string): PermissionRule[] {
  const pattern = alwaysCommandPattern(text);
  // Only the star this module adds (` *` or a script group's `:*`) may be a wildcard.
  const own = pattern.endsWith(' *') ? pattern.slice(0, -2) : pattern.endsWith(':*') ? pattern.slice(0, -1) : pattern;
  return own.includes('*') ? [] : [{ kind, pattern, action: 'allow' }];
}

export function alwaysCommandPattern(text: string): string {
  const all = text.split(' ').filter(Boolean);
  // Leading assignments stay verbatim: they change what the program does, and dropping them
  // would let the rule miss this very command.
  let e = 0;
  while (e < all.length && ENV.test(all[e])) e++;
  const env = all.slice(0, e);
  const words = all.slice(e);
  if (!words.length) return text;
  const prog = words[0];
  if (EXACT.has(prog)) return text;
  if (INTERPRETERS.has(prog)) {
    // The module or script is the action: `python -m pytest *`, `node x.js *`, never `node *`;
    // `bash -c ...` and a bare interpreter stay exact.
    if (prog.startsWith('python') && words[1] === '-m' && words.length > 2) return join(env, words.slice(0, 3));
    if (words.length < 2 || words[1].startsWith('-')) return text;
    return join(env, words.slice(0, 2));
  }
  // Options before the action stay in the head verbatim, with their values: the rule then reads
  // exactly as wide as it is (`git -C /other push` never becomes `git *`).
  const head = [prog];
  let i = 1;
  const valued = VALUED[prog] ?? new Set<string>();
  let arity = ARITY[prog] ?? 1;
  let actions = 1;
  while (i < words.length && actions < arity) {
    const w = words[i];
    if (w.startsWith('-')) {
      head.push(w);
      if (valued.has(w) && i + 1 < words.length) head.push(words[++i]);
      i++;
      continue;
    }
    if (actions === 1 && EXACT_SUB[prog]?.has(w)) return text;
    // Data where an action belongs (`make build/x`, `npm run ./y`): no shape to generalise.
    if (LITERAL.test(w) && !WRAPPERS.has(prog)) return text;
    if (actions === 1 && RUNNERS.has(`${prog} ${w}`)) arity = 3;
    if (actions === 2 && arity === 3 && w.includes(':')) {
      // `npm run test:unit` → every `test:` script.
      head.push(`${w.slice(0, w.indexOf(':') + 1)}*`);
      return join(env, head, false);
    }
    head.push(w);
    actions++;
    i++;
  }
  // `git` alone must not become `git *`: a command shorter than its action is kept exact.
  // Bare `make` is the exception: it already names its action (the default target).
  if (actions < arity && !(prog === 'make' && words.length === 1)) return text;
  return join(env, head);
}

function join(env: string[], head: string[], star = true): string {
  return [...env, ...head, ...(star ? ['*'] : [])].join(' ');
}

/** The folder to allow for an outside path: itself if it is a folder, else its parent. */
export async function alwaysFolderPattern(abs: string): Promise<string> {
  let dir = path.dirname(abs);
  try {
    if ((await stat(abs)).isDirectory()) dir = abs;
  } catch {}
  return dir === '/' ? '/**' : `${dir}/**`;
}

export function alwaysUrlPattern(url: URL): string {
  return `${url.origin}/*`;
}
