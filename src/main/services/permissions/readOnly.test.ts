// The read-only classifier on the command analysis: what plan mode runs and what it refuses.
import { describe, expect, it } from 'vitest';
import { analyseCommand } from './commandAnalysis';
import { readOnlyVerdict } from './readOnly';

const verdict = async (c: string) => readOnlyVerdict(await analyseCommand(c));

const READ_ONLY = [
  'ls',
  'ls -la src',
  'git log',
  'git log --oneline -n 5 -- src/a.ts',
  'git -C sub log -p',
  'git --no-pager diff HEAD~1 --stat',
  'git status --porcelain',
  'git show HEAD:src/a.ts',
  'git branch -a',
  'git branch --list "feat*"',
  'git tag',
  'git remote -v',
  'git stash list',
  'git config --get user.name',
  'rg foo',
  'rg -n "a b" src --glob "*.ts"',
  'grep -rn TODO src 2>/dev/null',
  'cat a.txt | wc -l',
  'find . -name "*.ts" -not -path "./node_modules/*"',
  'find src -type f -exec cat {} +',
  'git ls-files -z | xargs -0 wc -l',
  'head -n 20 a.txt && tail -n 5 a.txt',
  'cd src && ls',
  'echo $(git rev-parse HEAD)',
  'diff <(ls a) <(ls b)',
  'sort a.txt | uniq -c | sort -rn | head',
  "sed -n '1,20p' a.txt",
  'awk \'{print $1}\' a.txt',
  'jq .name package.json',
  'ls *.ts',
  'stat a.txt; du -sh .',
];

const NOT_READ_ONLY = [
  'rm x',
  'sed -i s/a/b/ a.txt',
  "sed -i.bak 's/a/b/' a.txt",
  'git commit -m x',
  'git add .',
  'npm install',
  'touch x',
  'echo hi > a.txt',
  'echo hi >> a.txt',
  'cat a.txt | tee b.txt',
  'ls && rm -rf src',
  'echo $(rm x)',
  'find . -delete',
  'find . -name x -exec rm {} ;',
  'find . -fprint out.txt',
  'ls | xargs rm',
  'sort -o out a.txt',
  'sort --output=out a.txt',
  'sort *',
  'git branch newbranch',
  'git branch -D main',
  'git tag v1',
  'git stash',
  'git remote add o http://x',
  'git config user.name x',
  'git diff --output=x',
  'git log --output x',
  'git -c core.pager=x log',
  'git checkout .',
  'rg --pre ./x foo',
  'bash -c "rm x"',
  'sh script.sh',
  './ls',
  '$CMD',
  'eval ls',
  'cp a b',
  'mv a b',
  'mkdir d',
  'tree -o out.txt',
  'dd if=a of=b',
  "awk '{print > \"out\"}' a.txt",
  "sed 'w out' a.txt",
  'python3 -c "print(1)"',
  'node x.js',
  'curl -o x http://e',
  'hostname evil',
  'env FOO=1',
  'ls > >(cat)',
  'uniq a.txt b.txt',
  'date -s 2020-01-01',
  // A config file that names a program to run (rg --pre) is as good as the option.
  'RIPGREP_CONFIG_PATH=cfg rg foo',
  'GIT_PAGER=x git log',
  "env -S'touch x'",
  // GNU time's report file.
  '/usr/bin/time -o t.txt ls',
  'command time --output=t.txt ls',
  'time -ao t.txt ls',
];

describe('read-only commands', () => {
  it.each(READ_ONLY)('%s is read-only', async (c) => {
    const v = await verdict(c);
    expect(v.readOnly).toBe(true);
    // git runs what the repository's config names: only where the sandbox holds the workspace read-only.
    expect(v, c).toEqual(/\bgit\b/.test(c) ? { readOnly: true, sandboxOnly: expect.stringMatching(/repository's own config/) } : { readOnly: true });
  });
  it.each(NOT_READ_ONLY)('%s is not', async (c) => {
    const v = await verdict(c);
    expect(v.readOnly).toBe(false);
    if (!v.readOnly) expect(v.why.length).toBeGreaterThan(5);
  });
});
