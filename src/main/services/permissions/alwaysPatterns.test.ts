import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { alwaysCommandPattern, alwaysCommandRules } from './alwaysPatterns';
import { matchCommand } from './patterns';

const TABLE: [string, string][] = [
  ['npm test', 'npm test *'],
  ['npm test -- --watch=false', 'npm test *'],
  ['npm run test:unit', 'npm run test:*'],
  ['npm run test:e2e -- --grep x', 'npm run test:*'],
  ['npm run build', 'npm run build *'],
  ['npm run lint -- --fix', 'npm run lint *'],
  ['npm install', 'npm install *'],
  ['npm install lodash', 'npm install *'],
  ['npm ci', 'npm ci *'],
  ['npm publish', 'npm publish'],
  ['npm run', 'npm run'],
  ['npm --prefix web run build', 'npm --prefix web run build *'],
  ['yarn test', 'yarn test *'],
  ['yarn run build:prod', 'yarn run build:*'],
  ['pnpm test', 'pnpm test *'],
  ['pnpm exec vitest run', 'pnpm exec vitest *'],
  ['pnpm --filter api test', 'pnpm --filter api test *'],
  ['bun run dev', 'bun run dev *'],
  ['bunx tsc --noEmit', 'bunx tsc *'],
  ['npx -y prettier --write src/a.ts', 'npx -y prettier *'],
  ['npx prettier --check .', 'npx prettier *'],
  ['npx @biomejs/biome check', 'npx @biomejs/biome *'],
  ['npx tsc -p tsconfig.json', 'npx tsc *'],
  ['uv run pytest -x', 'uv run pytest *'],
  ['poetry run pytest tests/test_a.py', 'poetry run pytest *'],
  ['python -m pytest -q', 'python -m pytest *'],
  ['python3 -m mypy src', 'python3 -m mypy *'],
  ['python scripts/gen.py --out /tmp/x', 'python scripts/gen.py *'],
  ['python', 'python'],
  ['python -c print(1)', 'python -c print(1)'],
  ['node scripts/build.mjs', 'node scripts/build.mjs *'],
  ['node -e 1', 'node -e 1'],
  ['bash -c ls', 'bash -c ls'],
  ['sh ./configure', 'sh ./configure *'],
  ['node_modules/.bin/vitest run', 'node_modules/.bin/vitest *'],
  ['./node_modules/.bin/eslint src', './node_modules/.bin/eslint *'],
  ['git status', 'git status *'],
  ['git status --short', 'git status *'],
  ['git log --oneline -5', 'git log *'],
  ['git diff HEAD~1', 'git diff *'],
  ['git show a1b2c3d', 'git show *'],
  ['git --no-pager log -3', 'git --no-pager log *'],
  ['git -C /other log', 'git -C /other log *'],
  ['git -C /other push', 'git -C /other push'],
  ['git push origin main', 'git push origin main'],
  ['git push --force', 'git push --force'],
  ['git reset --hard HEAD~3', 'git reset --hard HEAD~3'],
  ['git clean -fdx', 'git clean -fdx'],
  ['git checkout -- src/a.ts', 'git checkout -- src/a.ts'],
  ['git add src/a.ts', 'git add *'],
  ['git commit -m wip', 'git commit *'],
  ['git branch -D old', 'git branch -D old'],
  ['git config user.name x', 'git config user.name x'],
  ['git', 'git'],
  ['git -c core.pager=cat diff', 'git -c core.pager=cat diff *'],
  ['cargo build --release', 'cargo build *'],
  ['cargo test -p core', 'cargo test *'],
  ['cargo publish', 'cargo publish'],
  ['go test ./...', 'go test *'],
  ['go build ./cmd/x', 'go build *'],
  ['go run ./cmd/x', 'go run *'],
  ['make', 'make *'],
  ['make test', 'make test *'],
  ['make -C sub build', 'make -C sub build *'],
  ['make build/out.o', 'make build/out.o'],
  ['docker compose up -d', 'docker compose up *'],
  ['docker ps -a', 'docker ps *'],
  ['docker rm -f abc', 'docker rm -f abc'],
  ['docker run --rm -v /:/host alpine', 'docker run --rm -v /:/host alpine'],
  ['kubectl get pods', 'kubectl get *'],
  ['kubectl delete pod x', 'kubectl delete pod x'],
  ['gh pr view 12', 'gh pr view *'],
  ['gh pr list --state open', 'gh pr list *'],
  ['gh api repos/x/y', 'gh api repos/x/y'],
  ['ls -la src', 'ls *'],
  ['cat package.json', 'cat *'],
  ['rg -n foo src', 'rg *'],
  ['grep -r TODO .', 'grep *'],
  ['wc -l src/a.ts', 'wc *'],
  ['tee out.log', 'tee *'],
  ['head -n 20 /tmp/tmp.x1y2', 'head *'],
  ['rm -rf /tmp/tmp.x1y2', 'rm -rf /tmp/tmp.x1y2'],
  ['rm -rf dist', 'rm -rf dist'],
  ['mv a b', 'mv a b'],
  ['kill 12345', 'kill 12345'],
  ['kill -9 4242', 'kill -9 4242'],
  ['chmod +x run.sh', 'chmod +x run.sh'],
  ['chown me file', 'chown me file'],
  ['dd if=/dev/zero of=x', 'dd if=/dev/zero of=x'],
  ['curl -fsSL https://x.sh', 'curl -fsSL https://x.sh'],
  ['find . -name x -delete', 'find . -name x -delete'],
  ['xargs rm', 'xargs rm'],
  ['sudo ls', 'sudo ls'],
  ['FOO=1 npm test', 'FOO=1 npm test *'],
  ['CI=1 NODE_ENV=test npm run test:unit', 'CI=1 NODE_ENV=test npm run test:*'],
  ['FOO=1 rm -rf x', 'FOO=1 rm -rf x'],
  ['FOO=1', 'FOO=1'],
];

describe('alwaysCommandPattern', () => {
  it('has at least 80 rows', () => expect(TABLE.length).toBeGreaterThanOrEqual(80));
  it.each(TABLE)('%s → %s', (cmd, want) => {
    expect(alwaysCommandPattern(cmd)).toBe(want);
    expect(matchCommand(want, cmd)).toBe(true);
  });

  it('proposes nothing when the command itself holds a star a rule would read as a wildcard', () => {
    expect(alwaysCommandRules('bash', 'rm -rf *.log')).toEqual([]);
    expect(alwaysCommandRules('bash', 'npx *x')).toEqual([]);
    expect(alwaysCommandRules('bash', 'ls *.ts')).toEqual([{ kind: 'bash', pattern: 'ls *', action: 'allow' }]);
    expect(alwaysCommandRules('bash', 'npm run test:unit')).toEqual([{ kind: 'bash', pattern: 'npm run test:*', action: 'allow' }]);
  });

  const word = fc.stringMatching(/^[A-Za-z0-9_./:=@~+-]{1,8}$/);
  const prog = fc.constantFrom('npm', 'git', 'pnpm', 'npx', 'python', 'node', 'make', 'ls', 'cat', 'rm', 'kill', 'docker', 'gh', 'cargo', 'go', 'chmod', 'uv', 'FOO=1');
  const command = fc.tuple(prog, fc.array(word, { maxLength: 6 })).map(([p, ws]) => [p, ...ws].join(' '));

  it('(a) the proposed rule matches the command it came from', () => {
    fc.assert(fc.property(command, (cmd) => matchCommand(alwaysCommandPattern(cmd), cmd)), { numRuns: 2000 });
  });

  it('(b) it never matches a command whose program differs', () => {
    fc.assert(fc.property(command, prog, fc.array(word, { maxLength: 6 }), (cmd, other, ws) => {
      const otherCmd = [other, ...ws].join(' ');
      const progOf = (c: string) => c.split(' ').find((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
      fc.pre(progOf(otherCmd) !== progOf(cmd));
      return !matchCommand(alwaysCommandPattern(cmd), otherCmd);
    }), { numRuns: 2000 });
  });

  it('(c) a destructive command’s rule never matches a different target', () => {
    const destructive = fc.constantFrom('rm -rf', 'rm', 'mv', 'kill -9', 'kill', 'chmod +x', 'chown me', 'dd', 'git push', 'git reset --hard', 'git clean -fdx', 'git checkout --');
    fc.assert(fc.property(destructive, word, word, (head, a, b) => {
      fc.pre(a !== b);
      return !matchCommand(alwaysCommandPattern(`${head} ${a}`), `${head} ${b}`);
    }), { numRuns: 2000 });
  });
});
