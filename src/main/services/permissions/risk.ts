// Commands whose harm cannot be taken back: what they destroy is not in the modification log or
// git's history (ignored files, uncommitted work, a remote's branches, a database, a disk), or
// they act beyond this machine. Found on every simple command the analysis opens up (chains,
// pipes, `bash -c`, `find -exec`, xargs, wrappers such as `timeout` and `sudo`), by the words
// the program gets, so quoting and flag order do not hide them. An approval card for one says
// why it is risky, and the sandbox's containment alone never lets one pass without a card
// (docs/security.md, "Risky commands").
import type { AnalysedCommand, CommandAnalysis } from './commandAnalysis';

/** Options of `sudo`/`doas` that take a value, so the command starts after it. */
const SUDO_VALUE = new Set(['-u', '-g', '-h', '-p', '-C', '-D', '-r', '-t', '-U', '-T', '--user', '--group', '--host', '--prompt', '--chdir', '--role', '--type', '--other-user', '--command-timeout']);
const SQL_PROGRAMS = new Set(['psql', 'mysql', 'mariadb', 'sqlite3', 'sqlite', 'duckdb', 'sqlcmd', 'clickhouse', 'clickhouse-client', 'cockroach', 'mongo', 'mongosh', 'redis-cli', 'cqlsh', 'snowsql', 'bq', 'pgcli', 'mycli', 'litecli', 'usql']);
const INTERPRETERS = /^(python[\d.]*|node|nodejs|deno|bun|ruby|perl|php|sh|bash|zsh|dash|ksh)$/;
/** Statements that destroy a database's data wholesale; `DELETE FROM t` with no WHERE clause counts. */
const DESTRUCTIVE_SQL =
  /\b(drop\s+(table|database|schema|view|index|collection|keyspace|user|role)\b|truncate\s+(table\s+)?[\w."`[]|delete\s+from\s+[\w."`[\]]+\s*(;|$|\n|["'`)])|dropDatabase\s*\(|\.drop\s*\(\s*\)|\bflushall\b|\bflushdb\b)/i;
const PUBLISHERS: Record<string, (argv: string[]) => boolean> = {
  npm: (a) => a[1] === 'publish' || a[1] === 'unpublish',
  yarn: (a) => a[1] === 'publish' || (a[1] === 'npm' && a[2] === 'publish'),
  pnpm: (a) => a[1] === 'publish',
  cargo: (a) => a[1] === 'publish',
  twine: (a) => a[1] === 'upload',
  gem: (a) => a[1] === 'push' || a[1] === 'yank',
  poetry: (a) => a[1] === 'publish',
};

const base = (p: string) => p.slice(p.lastIndexOf('/') + 1);

/** A short flag bundle (`-rf`) or a long flag: does it set this short letter or long name? */
function flagged(argv: string[], short: string | null, long: string[]): boolean {
  for (const v of argv.slice(1)) {
    if (v === '--') return false;
    if (long.some((l) => v === l || v.startsWith(`${l}=`))) return true;
    if (short && /^-[A-Za-z0-9]+$/.test(v) && v.includes(short)) return true;
  }
  return false;
}

/** Words after `sudo`/`doas` and their options: the command they run as root. */
function afterSudo(argv: string[]): string[] {
  let i = 1;
  while (i < argv.length && argv[i].startsWith('-')) {
    if (argv[i] === '--') return argv.slice(i + 1);
    i += SUDO_VALUE.has(argv[i]) ? 2 : 1;
  }
  return argv.slice(i);
}

/** The words a command runs once `sudo`/`doas` are peeled off. */
function asRun(argv: string[]): string[] {
  let words = argv;
  for (let i = 0; i < 3 && ['sudo', 'doas'].includes(base(words[0] ?? '')); i++) words = afterSudo(words);
  return words;
}

/** git's own options before the subcommand (`git -C dir -c k=v push`). */
function gitArgs(argv: string[]): string[] {
  let i = 1;
  while (i < argv.length && argv[i].startsWith('-')) i += ['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--exec-path', '--config-env'].includes(argv[i]) ? 2 : 1;
  return argv.slice(i);
}

function gitRisk(argv: string[]): string | null {
  const [sub, ...rest] = gitArgs(argv);
  const words = [sub, ...rest];
  const has = (short: string | null, ...long: string[]) => flagged(words, short, long);
  switch (sub) {
    case 'push':
      if (has('f', '--force', '--force-with-lease', '--force-if-includes', '--mirror')) return 'git push --force rewrites the remote branch; commits others pushed can be lost';
      if (has('d', '--delete', '--prune') || rest.some((r) => /^\+|^:[^:]/.test(r))) return 'it deletes or rewrites branches on the remote, beyond this machine';
      return null;
    case 'reset':
      return has(null, '--hard', '--merge') ? 'git reset --hard throws away uncommitted changes in tracked files' : null;
    case 'clean':
      return has('f', '--force') && !has('n', '--dry-run') ? 'git clean deletes untracked files, which git cannot bring back' : null;
    case 'checkout':
      if (has('f', '--force')) return 'git checkout --force throws away uncommitted changes';
      return rest.includes('--') || rest.includes('.') ? 'git checkout of paths throws away their uncommitted changes' : null;
    case 'restore':
      return has('S', '--staged') && !has('W', '--worktree') ? null : 'git restore throws away uncommitted changes in the files it restores';
    case 'branch':
      return has('D') || (has('d', '--delete') && has('f', '--force')) ? 'it deletes a branch even if its commits are merged nowhere' : null;
    case 'stash':
      return rest[0] === 'drop' || rest[0] === 'clear' ? 'it deletes stashed changes' : null;
    case 'reflog':
      return rest[0] === 'expire' || rest[0] === 'delete' ? 'it deletes the reflog, the record that recovers lost commits' : null;
    case 'gc':
      return has(null, '--prune') ? 'git gc --prune deletes unreachable commits for good' : null;
    case 'update-ref':
      return has('d') ? 'it deletes a ref' : null;
    case 'filter-branch':
    case 'filter-repo':
      return 'it rewrites the whole history of the repository';
    default:
      return null;
  }
}

/** Why running these words destroys what cannot be brought back, or null. */
function wordsRisk(argv: string[], depth = 0): string | null {
  const program = base(argv[0] ?? '');
  if ((program === 'sudo' || program === 'doas') && depth < 3) {
    const inner = afterSudo(argv);
    const r = inner.length ? wordsRisk(inner, depth + 1) : null;
    return r ? `${r} (as root, through ${program})` : null;
  }
  switch (program) {
    case 'rm':
      return flagged(argv, 'r', ['--recursive']) || flagged(argv, 'R', []) ? 'rm -r deletes whole folders; what git does not track (ignored files, build output, .env) cannot be brought back' : null;
    case 'git':
      return gitRisk(argv);
    case 'find':
      return argv.includes('-delete') ? 'find -delete deletes every file it matches' : null;
    case 'shred':
    case 'wipefs':
      return `${program} destroys data beyond recovery`;
    case 'dd':
      return argv.some((a) => a.startsWith('of=/dev/')) ? 'dd writes raw bytes over a device' : null;
    case 'dropdb':
      return 'dropdb deletes a database';
    case 'terraform':
    case 'tofu':
      return argv[1] === 'destroy' ? `${program} destroy deletes real infrastructure` : null;
    case 'kubectl':
      return argv[1] === 'delete' ? 'kubectl delete deletes resources in a cluster' : null;
  }
  if (/^mkfs(\.|$)/.test(program)) return `${program} formats a device, erasing it`;
  if (PUBLISHERS[program]?.(argv)) return 'it publishes a package; a published version cannot be taken back';
  return null;
}

/** SQL that destroys data, in a line that runs a database client or inline code. */
function sqlRisk(commands: AnalysedCommand[], source: string): string | null {
  const runsSql = commands.some((c) => {
    const argv = asRun(c.argv.map((a) => a ?? ''));
    const program = base(argv[0] ?? '');
    if (SQL_PROGRAMS.has(program)) return true;
    return INTERPRETERS.test(program) && argv.some((a) => /^(-c|-e|--eval|-E|--command)$/.test(a));
  });
  if (!runsSql) return null;
  const m = DESTRUCTIVE_SQL.exec(source);
  if (!m) return null;
  const said = m[0].replace(/\s+/g, ' ');
  const what = /^drop /i.test(said) ? said.split(' ').slice(0, 2).join(' ') : /^truncate/i.test(said) ? said.split(' ')[0] : /^delete/i.test(said) ? 'DELETE FROM without WHERE' : said.replace(/\s*\(.*$/, '()').replace(/^\./, '');
  return `${what} destroys data in a database`;
}

/** `rm $FLAGS dir`: a word before `--` only known when it runs may be `-rf`. */
function unknownRmFlags(c: AnalysedCommand): string | null {
  const argv = ['sudo', 'doas'].includes(base(c.argv[0] ?? '')) ? asRunOrNull(c.argv) : c.argv;
  if (base(argv[0] ?? '') !== 'rm') return null;
  const end = argv.indexOf('--');
  const words = end < 0 ? argv.slice(1) : argv.slice(1, end);
  // xargs' input arrives after the options it was given: it holds names, not flags.
  if (c.via === 'xargs' && words[words.length - 1] === null && !words.slice(0, -1).includes(null)) return null;
  return words.includes(null) ? 'rm with words only known when it runs, which may make it delete whole folders' : null;
}

/** `asRun` over words some of which are unknown (null): the nulls stay where they were. */
function asRunOrNull(argv: (string | null)[]): (string | null)[] {
  const known = asRun(argv.map((a) => a ?? ''));
  return argv.slice(argv.length - known.length);
}

/**
 * Reasons a command line is destructive or irreversible, one per kind of harm, in the order
 * found; empty when none is.
 */
export function destructiveReasons(analysis: CommandAnalysis, source: string): string[] {
  const reasons = new Set<string>();
  for (const c of analysis.commands) {
    const argv = c.argv.map((a) => a ?? '');
    const r = wordsRisk(argv) ?? unknownRmFlags(c);
    if (r) reasons.add(c.via ? `${r} (via ${c.via})` : r);
  }
  const sql = sqlRisk(analysis.commands, source);
  if (sql) reasons.add(sql);
  return [...reasons];
}
