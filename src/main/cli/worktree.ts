// `loupe worktree list | diff NAME | apply NAME [--files A,B] | merge NAME [--message MSG] |
// discard NAME [--confirm DIGEST] | prune [--cwd DIR] [--json]`:
// Loupe's worktrees of the folder's repository (docs/architecture.md, "Sessions in a worktree").
// `diff` shows what `apply` would write in the main folder, for review; `--files` applies only
// the files chosen. `merge` commits the worktree's work on its branch and merges that into the
// main folder's branch with git (refused over conflicts), recording what it wrote.
// `apply` brings a worktree's changes into the main folder as one group of its modification log,
// or names every conflict and changes nothing (exit 1). `discard` shows what would be lost and
// removes only when confirmed: on a terminal by answering, elsewhere with the report's digest.
import { createInterface } from 'node:readline/promises';
import { InvalidArgumentError } from '../errors';
import { userLog } from '../services/log/userLog';
import { defaultConfigDir } from '../services/settings/configDir';
import { applyPlan, planApply, planDiff, selectFiles } from '../services/worktrees/applyToMain';
import { ApplyConflictError } from '../services/worktrees/errors';
import { mergeBranch } from '../services/worktrees/mergeBranch';
import { composeWorkspace, openUserSettings, openWorktrees } from '../workspace/compose';
import { parseArgs } from './args';
import { workspaceRoot } from './workspaceRoot';

const USAGE = 'Usage: loupe worktree list | diff NAME | apply NAME [--files A,B] | merge NAME [--message MSG] | discard NAME [--confirm DIGEST] | prune [--cwd DIR] [--json]';

const say = (s: string) => process.stderr.write(`${s}\n`);
const ago = (ms: number) => {
  const m = Math.round((Date.now() - ms) / 60_000);
  return m < 60 ? `${m} min` : m < 2880 ? `${Math.round(m / 60)} h` : `${Math.round(m / 1440)} d`;
};

export async function runWorktree(args: string[]): Promise<number> {
  const { flags, positionals } = parseArgs(args, { cwd: 'string', json: 'boolean', confirm: 'string', files: 'string', message: 'string' });
  const [verb, name, ...extra] = positionals;
  if (extra.length || !verb) throw new InvalidArgumentError(USAGE);
  const json = flags.json === true;
  const out = (v: unknown) => json && process.stdout.write(`${JSON.stringify(v)}\n`);
  const root = await workspaceRoot(typeof flags.cwd === 'string' ? flags.cwd : undefined);
  const user = openUserSettings(defaultConfigDir());
  const worktrees = openWorktrees(root, user);
  const needName = () => {
    if (!name) throw new InvalidArgumentError(`${verb} needs a worktree name. ${USAGE}`);
    return name;
  };
  switch (verb) {
    case 'list': {
      const all = await worktrees.list();
      const spare = await worktrees.spareInfo();
      out({ type: 'worktrees', worktrees: all, spare });
      if (!json) for (const w of all) process.stdout.write(`${w.name}\t${w.branch}\t${w.missing ? 'missing (deleted by hand; prune or discard)' : `${(w.size_bytes! / 1e6).toFixed(1)} MB, ${w.created_ms ? ago(w.created_ms) : '?'} old`}\t${w.path}\n`);
      if (spare) say(`(a spare checkout is kept ready for the next worktree: ${spare.path}, ${(spare.size_bytes / 1e6).toFixed(1)} MB; settings "worktrees": {"spare": false} stops that, and it goes with the last worktree discarded)`);
      return 0;
    }
    case 'prune': {
      const gone = await worktrees.prune();
      out({ type: 'pruned', worktrees: gone });
      say(gone.length ? `Forgot ${gone.join(', ')} (folders deleted by hand); their branches stay until discarded.` : 'No worktree folder is missing.');
      return 0;
    }
    case 'diff': {
      const plan = await planApply(root, await worktrees.pathOf(needName()), needName(), { linked: worktrees.linked() });
      if (json) out({ type: 'worktree_diff', name: plan.name, base: plan.base, files: plan.files.map((f) => ({ file: f.file, operation: f.operation, merged: f.merged, added: f.added, removed: f.removed })), conflicts: plan.conflicts, diff: planDiff(plan) });
      else process.stdout.write(planDiff(plan));
      for (const c of plan.conflicts) say(`! ${c.file}: ${c.why}`);
      return 0;
    }
    case 'merge':
      return merge(root, worktrees, needName(), json, user, typeof flags.message === 'string' ? flags.message : `Work of Loupe worktree ${needName()}`);
    case 'apply':
      return apply(root, worktrees, needName(), json, user, typeof flags.files === 'string' ? flags.files.split(',').map((f) => f.trim()).filter(Boolean) : null);
    case 'discard': {
      const report = await worktrees.report(needName());
      say(`Discarding worktree ${report.name} (${report.path}) and branch ${report.branch} would lose:`);
      for (const l of report.uncommitted) say(`  uncommitted ${l}`);
      for (const c of report.commits) say(`  commit ${c}`);
      if (!report.uncommitted.length && !report.commits.length) say('  nothing that is not in the main folder');
      let confirmed = flags.confirm === report.digest;
      if (typeof flags.confirm === 'string' && !confirmed) say('That confirmation is not this report (something changed since it was shown).');
      if (flags.confirm === undefined && process.stdin.isTTY) {
        const rl = createInterface({ input: process.stdin, output: process.stderr });
        confirmed = /^y(es)?$/i.test((await rl.question('Remove it? [y/N] ')).trim());
        rl.close();
      }
      if (!confirmed) {
        out({ type: 'discard', status: 'kept', report });
        say(`Kept. To remove it: loupe worktree discard ${report.name} --confirm ${report.digest}`);
        return 1;
      }
      await worktrees.discard(report.name, report.digest);
      out({ type: 'discard', status: 'removed', name: report.name });
      say(`Removed worktree ${report.name} and branch ${report.branch}.`);
      return 0;
    }
    default:
      throw new InvalidArgumentError(`Unknown worktree command '${verb}'. ${USAGE}`);
  }
}

async function apply(root: string, worktrees: ReturnType<typeof openWorktrees>, name: string, json: boolean, user: ReturnType<typeof openUserSettings>, files: string[] | null): Promise<number> {
  const whole = await planApply(root, await worktrees.pathOf(name), name, { linked: worktrees.linked() });
  const plan = files ? selectFiles(whole, files) : whole;
  say(`Apply worktree ${name} (branch ${plan.branch}, base ${plan.base.slice(0, 10)}) to ${root}: ${plan.files.length} file${plan.files.length === 1 ? '' : 's'}`);
  for (const f of plan.files) say(`  ${f.operation === 'create' ? '+' : f.operation === 'delete_file' ? '-' : '~'} ${f.file} (+${f.added} −${f.removed})${f.merged ? ' merged with changes made here' : ''}`);
  for (const c of plan.conflicts) say(`  ! ${c.file}: ${c.why}`);
  const { logger } = userLog({ configDir: defaultConfigDir(), stderr: 'env' });
  const services = composeWorkspace({ root, user, asker: { kind: 'deny' }, logger });
  try {
    const done = await applyPlan(services.modlog, plan, { sessionId: `review-${Date.now().toString(36)}` });
    if (json) process.stdout.write(`${JSON.stringify({ type: 'apply', status: 'applied', name, ...done })}\n`);
    say(`Applied as group ${done.group_id}; rolling that group back (timeline, or code_rollback) undoes it.`);
    return 0;
  } catch (err) {
    if (!(err instanceof ApplyConflictError)) throw err;
    if (json) process.stdout.write(`${JSON.stringify({ type: 'apply', status: 'refused', name, conflicts: err.conflicts })}\n`);
    say(`Nothing was changed: ${err.conflicts.length} file${err.conflicts.length === 1 ? '' : 's'} conflict with edits in the main folder.`);
    return 1;
  } finally {
    await services.dispose();
  }
}

async function merge(root: string, worktrees: ReturnType<typeof openWorktrees>, name: string, json: boolean, user: ReturnType<typeof openUserSettings>, message: string): Promise<number> {
  const worktree = await worktrees.pathOf(name);
  const { logger } = userLog({ configDir: defaultConfigDir(), stderr: 'env' });
  const services = composeWorkspace({ root, user, asker: { kind: 'deny' }, logger });
  try {
    const done = await mergeBranch({ root, worktree, name, message, sessionId: `review-${Date.now().toString(36)}`, setupPaths: worktrees.setupPaths(), captures: services.captures });
    if (json) process.stdout.write(`${JSON.stringify({ type: 'merge', status: 'merged', name, committed: done.committed, merge: done.merge, group_id: done.capture.group_id, files: done.capture.files.map((f) => f.file) })}\n`);
    say(`${done.committed ? `Committed the worktree's work (${done.committed.slice(0, 10)}) and merged` : 'Merged'} loupe/${name} as ${done.merge.slice(0, 10)}; ${done.capture.files.length} file${done.capture.files.length === 1 ? '' : 's'} changed here${done.capture.group_id ? ` (group ${done.capture.group_id})` : ''}.`);
    return 0;
  } catch (err) {
    if (!(err instanceof ApplyConflictError)) throw err;
    if (json) process.stdout.write(`${JSON.stringify({ type: 'merge', status: 'refused', name, conflicts: err.conflicts })}\n`);
    for (const c of err.conflicts) say(`  ! ${c.file}: ${c.why}`);
    say('Nothing was merged: resolve the conflicts in the worktree (or apply file by file), then merge again.');
    return 1;
  } finally {
    await services.dispose();
  }
}
