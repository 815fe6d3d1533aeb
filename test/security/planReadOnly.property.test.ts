// Plan mode runs only commands the analysis calls read-only. The property: none of them writes.
// Commands are generated from readers and writers, their writing options, redirects, pipes,
// chains, substitutions and `bash -c`; each one the classifier lets through runs for real in the
// OS sandbox — with the workspace writable, as in act mode, so a misjudged writer would write —
// on a scratch copy of a git repository, and the tree must be byte for byte what it was, with
// nothing the sandbox had to block. Controls prove that writers do change the tree.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyseCommand } from '../../src/main/services/permissions/commandAnalysis';
import { readOnlyVerdict } from '../../src/main/services/permissions/readOnly';
import { probeSandbox } from '../../src/main/services/sandbox/probe';
import { runCommand } from '../../src/main/services/shell/commandRunner';
import { git, tempDir, writeTree } from '../support/tmp';

const availability = await probeSandbox();
if (!availability.available) console.warn(`plan-mode property skipped: no sandbox (${availability.reason})`);
const d = availability.available && availability.kind === 'bwrap' ? describe : describe.skip;

let ws: { dir: string; cleanup: () => Promise<void> };

/** Every entry's kind, mode and content; the index by its entries (its cached stat data is not content). */
function treeState(root: string): string {
  const lines: string[] = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(root, rel)).sort()) {
      const r = rel ? `${rel}/${name}` : name;
      if (r === '.git/index') continue;
      const st = lstatSync(path.join(root, r));
      if (st.isDirectory()) {
        lines.push(`d ${r} ${st.mode.toString(8)}`);
        walk(r);
      } else if (st.isSymbolicLink()) lines.push(`l ${r} ${readlinkSync(path.join(root, r))}`);
      else lines.push(`f ${r} ${st.mode.toString(8)} ${createHash('sha256').update(readFileSync(path.join(root, r))).digest('hex')}`);
    }
  };
  walk('');
  lines.push(execFileSync('git', ['ls-files', '-s'], { cwd: root, encoding: 'utf8' }));
  return lines.join('\n');
}

const run = (command: string) => runCommand({ command, cwd: ws.dir, timeoutMs: 15_000, sandbox: { root: ws.dir, grant: { network: false, networkRule: null } } });

beforeAll(async () => {
  ws = await tempDir('loupe-plan-ro-');
  await writeTree(ws.dir, {
    'a.txt': 'alpha\nbeta\nalpha\n',
    'src/b.ts': 'export const b = 1;\n',
    'src/c.ts': 'export const c = "TODO";\n',
    'data.json': '{"name":"x","n":[1,2]}\n',
    // A file named like an option: a glob handed to a program can become that option.
    '--output=evil.txt': 'bait\n',
    '-o': 'bait\n',
  });
  git(ws.dir, 'init', '-q');
  git(ws.dir, 'add', '-A');
  git(ws.dir, 'commit', '-qm', 'init');
  git(ws.dir, 'tag', 'v1');
  git(ws.dir, 'branch', 'side');
  // The sandbox makes its read-only holes (.loupe, .git/info, hooks) on first use: before the baseline.
  await run('true');
});
afterAll(() => ws?.cleanup());

// Globs weigh more: one can expand to the files named like options.
const path_ = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom('*', '*.txt', '-*', '*o*') },
  { weight: 3, arbitrary: fc.constantFrom('a.txt', 'src/b.ts', 'src', '.', 'src/*', 'data.json', 'new.txt', 'out', '"a b"', '$HOME', '~') },
);
const word = fc.constantFrom('alpha', 'TODO', 'x', '-n', '-r', '-l', '--', '-o', '-i', '-T', '--output=out', '-delete', '-exec');

/** One simple command: a reader or a writer, with options that keep it reading or make it write. */
const simple: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(fc.constantFrom('ls', 'ls -la', 'cat', 'head -n 2', 'tail -n 1', 'wc -l', 'stat', 'du -s', 'file', 'readlink -f', 'tree', 'tree -o out', 'md5sum', 'od -c', 'strings'), path_).map(([c, p]) => `${c} ${p}`),
  fc.tuple(fc.constantFrom('grep', 'grep -rn', 'rg', 'rg -n', 'rg --pre cat', 'grep -l'), word, fc.option(path_, { nil: '' })).map(([c, w, p]) => `${c} ${w} ${p}`.trim()),
  fc.tuple(fc.constantFrom('sort', 'sort -r', 'sort -o out', 'sort --output=out2', 'uniq', 'uniq -c', 'sort -T .'), path_, fc.option(path_, { nil: '' })).map(([c, p, q]) => `${c} ${p} ${q}`.trim()),
  fc.tuple(fc.constantFrom('find', 'find src', 'find .'), fc.constantFrom('', '-name "*.ts"', '-type f', '-delete', '-exec cat {} +', '-exec rm {} +', '-fprint out', '-newer a.txt', '-exec touch {} ;')).map(([c, e]) => `${c} ${e}`.trim()),
  fc.constantFrom(
    'git log --oneline',
    'git log -p -- a.txt',
    'git status',
    'git status --porcelain',
    'git diff',
    'git diff HEAD --stat',
    'git diff --output=out',
    'git show HEAD:a.txt',
    'git branch -a',
    'git branch newb',
    'git branch -D side',
    'git tag',
    'git tag v2',
    'git tag -d v1',
    'git stash',
    'git stash list',
    'git add .',
    'git commit -qm x --allow-empty',
    'git checkout -q -b z',
    'git config user.name z',
    'git config --get user.name',
    'git rm -q --cached a.txt',
    'git reflog',
    'git reflog expire --expire=now --all',
    'git log --output=out',
    'git remote -v',
    'git remote add o http://e',
    'git ls-files',
    'git rev-parse HEAD',
    'git gc -q',
    'git update-ref -d refs/tags/v1',
  ),
  fc.tuple(fc.constantFrom("sed -n '1p'", "sed -i 's/alpha/A/'", "sed 's/alpha/A/'", "sed -n 'w out'", "awk '{print $1}'", "awk '{print > \"out\"}'", 'jq .', 'jq .name'), path_).map(([c, p]) => `${c} ${p}`),
  fc.tuple(fc.constantFrom('rm', 'rm -f', 'touch', 'mkdir -p', 'rmdir', 'chmod 600', 'truncate -s 0', 'cp a.txt', 'mv a.txt', 'ln -s a.txt', 'tee', 'dd if=a.txt of='), path_).map(([c, p]) => `${c} ${p}`.replace('of= ', 'of=')),
  fc.constantFrom('echo hi', 'printf "%s\\n" x', 'pwd', 'date', 'date -s 2020-01-01', 'true', 'env', 'env FOO=1', 'seq 3', 'sleep 0', 'whoami', 'id -u', 'uname -a', 'hostname', 'which git'),
  fc.constantFrom('npm install', 'python3 -c "open(\'w.txt\',\'w\')"', 'node -e "1"', 'perl -e 1', 'make', './a.txt', 'sh -s', 'bash a.txt'),
  // Wrappers and their own options: a report file, a string turned into a command, a job in the background.
  fc.constantFrom('/usr/bin/time -o out ls', 'command time -o out ls', 'time -p ls', "env -S'touch e.txt'", 'env -i ls', 'nohup ls', 'timeout 5 ls', 'nice -n 5 cat a.txt', '(ls; touch sub.txt)', 'ls & touch bg.txt; wait'),
);

const compose = (inner: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: inner },
    { weight: 1, arbitrary: fc.tuple(inner, inner).map(([a, b]) => `${a} | ${b}`) },
    { weight: 1, arbitrary: fc.tuple(inner, inner).map(([a, b]) => `${a} && ${b}`) },
    { weight: 1, arbitrary: fc.tuple(inner, inner).map(([a, b]) => `${a}; ${b}`) },
    { weight: 1, arbitrary: fc.tuple(inner, fc.constantFrom('> out', '>> a.txt', '2>/dev/null', '>/dev/null 2>&1', '&> out', '2> err.txt', '< a.txt')).map(([a, r]) => `${a} ${r}`) },
    { weight: 1, arbitrary: inner.map((a) => `echo "$(${a})"`) },
    { weight: 1, arbitrary: inner.map((a) => `bash -c '${a.replace(/'/g, `'\\''`)}'`) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('ls', 'git ls-files', 'find . -type f'), inner).map(([a, b]) => `${a} | xargs ${b.split(' ')[0]}`) },
    { weight: 1, arbitrary: inner.map((a) => `cd src && ${a}`) },
  );

d('plan mode: no command the analysis calls read-only writes', () => {
  it('holds for generated commands run in the sandbox', { timeout: 600_000 }, async () => {
    const baseline = treeState(ws.dir);
    const runs = Number(process.env.LOUPE_PLAN_RUNS ?? 300);
    const seen = { readOnly: 0, refused: 0 };
    const checked = new Set<string>();
    await fc.assert(
      fc.asyncProperty(compose(simple), async (command) => {
        const v = readOnlyVerdict(await analyseCommand(command));
        if (!v.readOnly) {
          seen.refused++;
          return;
        }
        seen.readOnly++;
        // A command already run and checked needs no second run.
        if (checked.has(command)) return;
        checked.add(command);
        const r = await run(command);
        expect(r.blocked, `${command}: the sandbox blocked a write\n${r.text}`).toBeNull();
        expect(treeState(ws.dir), `${command} changed the tree\n${r.text}`).toBe(baseline);
      }),
      { numRuns: runs },
    );
    console.info(`plan-mode property: ${seen.readOnly} read-only (${checked.size} distinct run in the sandbox), ${seen.refused} refused`);
    // Both sides are exercised: a generator that only made readers or only writers proves nothing.
    expect(seen.readOnly).toBeGreaterThan(runs / 8);
    expect(seen.refused).toBeGreaterThan(runs / 8);
  });

  it('controls: the comparison sees what writers do, and the classifier refuses them', async () => {
    const scratch = await tempDir('loupe-plan-ctl-');
    try {
      execFileSync('cp', ['-a', `${ws.dir}/.`, scratch.dir]);
      for (const command of ['touch new.txt', "sed -i 's/alpha/A/' a.txt", 'git commit -qm x --allow-empty', 'sort -o out a.txt', 'git branch newb', 'sort *.txt', 'rm -f -- -o']) {
        const before = treeState(scratch.dir);
        const r = await runCommand({ command, cwd: scratch.dir, timeoutMs: 15_000, sandbox: { root: scratch.dir, grant: { network: false, networkRule: null } } });
        expect(r.blocked, command).toBeNull();
        expect(treeState(scratch.dir), command).not.toBe(before);
        expect(readOnlyVerdict(await analyseCommand(command)).readOnly, command).toBe(false);
      }
    } finally {
      await scratch.cleanup();
    }
  });

  it('the sandbox plan mode grants holds the workspace read-only: a writer that got through would be stopped', async () => {
    const before = treeState(ws.dir);
    for (const command of ['touch new.txt', "sed -i 's/alpha/A/' a.txt", 'git commit -qm x --allow-empty', 'rm -rf src']) {
      const r = await runCommand({ command, cwd: ws.dir, timeoutMs: 15_000, sandbox: { root: ws.dir, grant: { network: false, networkRule: null, readOnly: true } } });
      expect(r.exitCode, command).not.toBe(0);
      expect(r.blocked, `${command}\n${r.text}`).toMatch(/write to/);
    }
    expect(treeState(ws.dir)).toBe(before);
  });
});
