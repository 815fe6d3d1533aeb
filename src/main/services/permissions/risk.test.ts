// Destructive commands are found however they are written (flag order and bundles, quoting,
// wrappers, sudo, chains, pipes, `bash -c`, `find -exec`, xargs, substitutions), and the same
// words as data (an echo, a grep, a commit message) are not. Generated with fast-check.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyseCommand } from './commandAnalysis';
import { destructiveReasons } from './risk';

const reasons = async (command: string) => destructiveReasons(await analyseCommand(command), command);

/** Destructive commands, each with the words its reason must contain. */
const DESTRUCTIVE: fc.Arbitrary<[string, RegExp]> = fc.oneof(
  fc.tuple(fc.constantFrom('rm', '/bin/rm', "'rm'", 'r""m', '\\rm'), fc.constantFrom('-rf', '-fr', '-r -f', '-f -r', '-R', '-Rf', '--recursive', '--recursive --force', '-rfv', '-vr'), fc.constantFrom('build', 'dist/', '~/old', '/', '"my dir"', 'a b c')).map(
    ([rm, flags, target]): [string, RegExp] => [`${rm} ${flags} ${target}`, /rm -r deletes whole folders/],
  ),
  fc.tuple(fc.constantFrom('git', '/usr/bin/git', 'git -C sub', 'git -c core.pager=cat'), fc.constantFrom('push --force', 'push -f', 'push --force-with-lease', 'push -uf', 'push --mirror'), fc.constantFrom('', ' origin main', ' origin HEAD:main')).map(
    ([git, push, rest]): [string, RegExp] => [`${git} ${push}${rest}`, /git push --force rewrites/],
  ),
  fc.constantFrom<[string, RegExp]>(
    ['git push origin +main', /rewrites branches on the remote/],
    ['git push origin :old-branch', /deletes or rewrites branches on the remote/],
    ['git push --delete origin old', /deletes or rewrites branches on the remote/],
    ['git reset --hard', /git reset --hard throws away/],
    ['git reset --hard HEAD~3', /git reset --hard throws away/],
    ['git clean -fd', /git clean deletes untracked files/],
    ['git clean -xdf', /git clean deletes untracked files/],
    ['git checkout -- src/a.ts', /throws away their uncommitted changes/],
    ['git checkout .', /throws away their uncommitted changes/],
    ['git checkout -f main', /git checkout --force/],
    ['git restore src/a.ts', /git restore throws away/],
    ['git restore --staged --worktree a', /git restore throws away/],
    ['git branch -D feature', /deletes a branch/],
    ['git stash drop', /deletes stashed changes/],
    ['git stash clear', /deletes stashed changes/],
    ['git filter-branch --tree-filter x HEAD', /rewrites the whole history/],
    ['find . -name "*.log" -delete', /find -delete/],
    ['shred -u secrets.txt', /shred destroys data/],
    ['dd if=/dev/zero of=/dev/sda bs=1M', /dd writes raw bytes over a device/],
    ['mkfs.ext4 /dev/sdb1', /mkfs.ext4 formats a device/],
    ['sqlite3 app.db "DROP TABLE users;"', /DROP TABLE destroys data/],
    ["psql -c 'drop database prod'", /drop database destroys data/],
    ['mysql -e "TRUNCATE TABLE orders"', /TRUNCATE destroys data/],
    ['echo "DELETE FROM users;" | sqlite3 app.db', /DELETE FROM without WHERE destroys data/],
    ['psql <<EOF\nDROP SCHEMA public CASCADE;\nEOF', /DROP SCHEMA destroys data/],
    ['redis-cli FLUSHALL', /FLUSHALL destroys data/],
    ['python3 -c "import sqlite3; sqlite3.connect(\'a.db\').execute(\'DROP TABLE t\')"', /DROP TABLE destroys data/],
    ['dropdb prod', /dropdb deletes a database/],
    ['npm publish', /publishes a package/],
    ['cargo publish --allow-dirty', /publishes a package/],
    ['terraform destroy -auto-approve', /terraform destroy deletes real infrastructure/],
    ['kubectl delete namespace prod', /kubectl delete deletes resources/],
    ['rm $FLAGS build', /rm with words only known when it runs/],
  ),
);

/** One word for bash, as single quotes make it. */
const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

/** Ways to run a command: wrappers, sudo, chains, pipes, other shells, substitutions. */
const AROUND = fc.constantFrom(
  (c: string) => c,
  (c: string) => `sudo ${c}`,
  (c: string) => `sudo -u root -E ${c}`,
  (c: string) => `timeout 30 ${c}`,
  (c: string) => `env CI=1 nice -n 5 ${c}`,
  (c: string) => `npm run build && ${c}`,
  (c: string) => `${c} || true`,
  (c: string) => `cd sub; ${c}`,
  (c: string) => `(${c})`,
  (c: string) => `{ ${c}; }`,
  (c: string) => `echo start | tee log.txt; ${c}`,
  (c: string) => `bash -c ${quote(c)}`,
  (c: string) => `sh -lc ${quote(c)}`,
  (c: string) => `x=$(${c})`,
  (c: string) => `if true; then ${c}; fi`,
);

/** The same words as data: none of these destroys anything. */
const HARMLESS = [
  'echo rm -rf /',
  'echo "rm -rf build"',
  'printf "%s\\n" "git push --force"',
  'grep -rn "DROP TABLE" src',
  'rg "rm -rf" docs',
  'git commit -m "rm -rf the old build; git reset --hard was wrong"',
  'git log --grep="DROP TABLE"',
  'cat migrations/001_drop_table.sql',
  'rm notes.txt',
  'rm -f build/out.js',
  'rm -- -rf',
  'rmdir empty',
  'git push',
  'git push origin main',
  'git push -u origin feature',
  'git reset --soft HEAD~1',
  'git reset HEAD file.txt',
  'git clean -n',
  'git clean -fdn',
  'git checkout main',
  'git checkout -b feature',
  'git restore --staged src/a.ts',
  'git branch -d merged',
  'git stash',
  'git stash pop',
  'find . -name "*.log"',
  'find . -name "*.log" -print',
  'sqlite3 app.db "SELECT * FROM users;"',
  'sqlite3 app.db "DELETE FROM users WHERE id = 3;"',
  'npm install',
  'npm run publish-docs',
  'ls | xargs rm',
  'terraform plan',
  'kubectl get pods',
];

describe('destructiveReasons', () => {
  it('finds a destructive command however it is written and wherever it runs in the line', async () => {
    await fc.assert(
      fc.asyncProperty(DESTRUCTIVE, AROUND, async ([command, why], around) => {
        const line = around(command);
        const found = await reasons(line);
        expect(found.join(' | '), line).toMatch(why);
      }),
      { numRuns: 400 },
    );
  });

  it('finds it in find -exec and xargs too, and says how it was reached', async () => {
    expect(await reasons('find . -name node_modules -exec rm -rf {} +')).toEqual([expect.stringMatching(/rm -r deletes whole folders.*\(via find -exec\)/)]);
    expect(await reasons('ls -d */ | xargs rm -r')).toEqual([expect.stringMatching(/\(via xargs\)/)]);
    expect(await reasons('sudo rm -rf /')).toEqual([expect.stringMatching(/\(as root, through sudo\)/)]);
  });

  it('leaves the same words alone when they are data, and ordinary commands alone', async () => {
    for (const command of HARMLESS) expect(await reasons(command), command).toEqual([]);
  });

  it('a line with two harms names both, once each', async () => {
    const found = await reasons('git reset --hard && rm -rf dist && rm -rf build');
    expect(found).toHaveLength(2);
    expect(found.join(' ')).toMatch(/git reset --hard.*rm -r/);
  });
});
