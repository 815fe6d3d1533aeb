// A development session of 40 commands through the real gate, a person answering every card:
// how many questions the sandbox saves, and that the risky ones still run contained.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ApprovalQueue, type ApprovalRequest } from '../../src/main/services/permissions/approvalQueue';
import { PermissionGate, type Authorized } from '../../src/main/services/permissions/permissionGate';
import { ProjectConfig } from '../../src/main/services/permissions/projectConfig';
import { PermissionEngine } from '../../src/main/services/permissions/ruleEngine';
import type { SandboxAvailability } from '../../src/main/services/sandbox/types';
import { tempDir } from '../support/tmp';
import { testTrust, type TestTrust } from '../support/trust';

const SESSION = [
  'ls',
  'ls -la src',
  'cat package.json',
  'cat src/index.ts',
  'git status',
  'git diff',
  'git log --oneline -20',
  'git diff --stat HEAD~1',
  'npm install left-pad',
  'npm run build',
  'npm test',
  'npx vitest run src/a.test.ts',
  'npm run lint',
  'npx eslint src --fix',
  'npx prettier --write src/index.ts',
  'npx tsc --noEmit',
  'grep -rn "TODO" src',
  'rg -n "export function" src',
  'find src -name "*.ts"',
  'wc -l src/*.ts',
  'head -50 README.md',
  'tail -20 CHANGELOG.md',
  'rm -rf build',
  'mkdir -p build/tmp',
  'node scripts/gen.js',
  'echo done > /tmp/loupe-session-outside.txt',
  'git add -A',
  'git commit -m "wip"',
  'git log -p -1',
  'git branch --list',
  'make',
  'make test',
  'cargo build',
  'python3 -m pytest -q',
  'sed -n 1,40p src/index.ts',
  'diff src/a.ts src/b.ts',
  'du -sh node_modules',
  'npm ls --depth=0',
  'node -e "console.log(process.version)"',
  'cat src/a.ts | sort | uniq -c',
];

let root: string;
let cleanup: () => Promise<void>;
let user: TestTrust;

beforeEach(async () => {
  ({ dir: root, cleanup } = await tempDir('loupe-session-'));
  user = testTrust();
});
afterEach(async () => {
  user.cleanup();
  await cleanup();
});

async function session(sandbox: 'auto' | 'off'): Promise<{ cards: ApprovalRequest[]; results: Map<string, Authorized> }> {
  await mkdir(path.join(root, '.loupe'), { recursive: true });
  // A config a project would plausibly have: the network for installs, the test command allowed.
  await writeFile(
    path.join(root, '.loupe', 'config.json'),
    JSON.stringify({ sandbox, permissions: [{ kind: 'network', pattern: 'npm install*', action: 'allow' }, { kind: 'bash', pattern: 'npm test', action: 'allow' }] }),
  );
  await user.trust(root);
  const bwrap: SandboxAvailability = { available: true, kind: 'bwrap', reason: null, install: null };
  const engine = new PermissionEngine({ root, project: new ProjectConfig(root, user.store), sandbox: async () => bwrap });
  const queue = new ApprovalQueue('wait');
  const cards: ApprovalRequest[] = [];
  // The person: says yes once to every card, and is counted.
  queue.setResponder(async (r) => {
    cards.push(r);
    return { answer: 'once' };
  });
  const gate = new PermissionGate(engine, queue, { persist: async () => undefined });
  const results = new Map<string, Authorized>();
  for (const command of SESSION) results.set(command, await gate.authorize({ query: { kind: 'bash', command }, tool: 'bash', summary: command }));
  return { cards, results };
}

it('40 development commands ask at least 80 % fewer questions with "sandbox": "auto" than "off"', async () => {
  expect(SESSION).toHaveLength(40);
  const off = await session('off');
  const auto = await session('auto');
  console.log(`sandbox session: ${SESSION.length} commands, questions with "off": ${off.cards.length}, with "auto": ${auto.cards.length}`);
  expect(off.cards.length).toBeGreaterThan(30);
  expect(auto.cards.length).toBeLessThanOrEqual(off.cards.length * 0.2);
  // Nothing ran outside; only the install got the network; the outside write runs contained.
  for (const [command, a] of auto.results) {
    expect(a.sandbox, command).not.toBeNull();
    expect(a.sandbox!.network, command).toBe(command === 'npm install left-pad');
  }
  for (const a of off.results.values()) expect(a.sandbox).toBeNull();
});
