// The approval queue, the gate in front of it, and "allow always" landing in config.json.
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir, until } from '../../../../test/support/tmp';
import { testTrust, type TestTrust } from '../../../../test/support/trust';
import { ApprovalQueue, type ApprovalRequest } from './approvalQueue';
import { PermissionGate } from './permissionGate';
import { ProjectConfig, lineColumn, parseJsonWithPosition } from './projectConfig';
import { PermissionEngine } from './ruleEngine';

let root: string;
let cleanup: () => Promise<void>;
let config: ProjectConfig;
let user: TestTrust;
const configFile = () => path.join(root, '.loupe', 'config.json');

beforeEach(async () => {
  ({ dir: root, cleanup } = await tempDir('loupe-approvals-'));
  user = testTrust();
  config = new ProjectConfig(root, user.store);
});
afterEach(async () => {
  user.cleanup();
  await cleanup();
});

function setup(whenUnattended: 'wait' | 'deny' = 'wait') {
  const engine = new PermissionEngine({ root, project: config });
  const queue = new ApprovalQueue(whenUnattended);
  const warnings: string[] = [];
  const gate = new PermissionGate(engine, queue, { persist: (r) => config.addRules(r), onWarning: (w) => warnings.push(w) });
  const requests: ApprovalRequest[] = [];
  queue.onEvent((e) => e.type === 'requested' && requests.push(e.request));
  return { engine, queue, gate, requests, warnings };
}

describe('ProjectConfig', () => {
  it('reports a malformed file with line and column, and ignores it', async () => {
    await mkdir(path.dirname(configFile()), { recursive: true });
    await writeFile(configFile(), '{\n  "permissions": [\n    {"kind": "bash", "pattern": "ls", "action": "allow"},\n  ]\n}\n');
    const r = await config.load();
    expect(r.rules).toEqual([]);
    expect(r.problems).toEqual([{ file: '.loupe/config.json', line: 4, column: 3, message: 'a trailing comma before ]' }]);
  });

  it('keeps good rules and reports bad ones by index', async () => {
    await mkdir(path.dirname(configFile()), { recursive: true });
    await writeFile(configFile(), JSON.stringify({ permissions: [{ kind: 'bash', pattern: 'ls', action: 'allow' }, { kind: 'shell', pattern: 'x', action: 'allow' }] }));
    await user.trust(root);
    const r = await config.load();
    expect(r.rules.map((x) => x.pattern)).toEqual(['ls']);
    expect(r.problems[0].message).toMatch(/^permissions\[1\]\.kind: .*ignored/);
  });

  it('computes line and column from an offset', () => {
    expect(lineColumn('ab\ncd\nef', 4)).toEqual({ line: 2, column: 2 });
    expect(lineColumn('ab', 0)).toEqual({ line: 1, column: 1 });
  });

  it.each([
    ['{"a": 1', 1, 8, "expected '}' but found the end of the file"],
    ['{\n  a: 1}', 2, 3, "expected a quoted property name but found 'a'"],
    ['{"a": 1} x', 1, 10, "unexpected 'x' after the end of the value"],
    ['{"a": "x\ny"}', 1, 9, 'a control character (such as a newline) inside a string'],
    ['{"a": [1 2]}', 1, 10, "expected ']' but found '2'"],
  ])('locates the first JSON error in %j', (text, line, column, message) => {
    const p = parseJsonWithPosition(text, 'c.json');
    expect(p).toEqual({ problem: { file: 'c.json', line, column, message } });
  });
});

describe('PermissionGate + ApprovalQueue', () => {
  it('allows by rule without asking, denies by rule with the rule named', async () => {
    await config.addRules([
      { kind: 'bash', pattern: 'ls *', action: 'allow' },
      { kind: 'bash', pattern: 'curl *', action: 'deny' },
    ]);
    const { gate, requests } = setup();
    expect((await gate.authorize({ query: { kind: 'bash', command: 'ls -la' }, tool: 'bash', summary: 'ls -la' })).by).toBe('rule');
    await expect(gate.authorize({ query: { kind: 'bash', command: 'ls && curl x' }, tool: 'bash', summary: 'ls && curl x' })).rejects.toMatchObject({
      code: 'PERMISSION_DENIED',
      message: expect.stringContaining('deny bash "curl *" from .loupe/config.json permissions[1]'),
    });
    expect(requests).toEqual([]);
  });

  it('asks with id, kind, tool, summary, reason, matched rule and always-patterns; "once" allows this time only', async () => {
    const { gate, queue, requests } = setup();
    const p = gate.authorize({ query: { kind: 'bash', command: 'npm run build' }, tool: 'bash', summary: 'npm run build' });
    await vitestUntil(() => requests.length === 1);
    expect(requests[0]).toMatchObject({
      id: expect.stringMatching(/^appr-/),
      kind: 'bash',
      tool: 'bash',
      summary: 'npm run build',
      rule: null,
      reason: 'npm run build: no rule matches, so the default for bash applies (ask)',
      always: [{ kind: 'bash', pattern: 'npm run build *', action: 'allow' }],
    });
    expect(queue.list()).toHaveLength(1);
    expect(queue.answer(requests[0].id, { answer: 'once' })).toBe(true);
    expect((await p).by).toBe('once');
    expect(queue.list()).toHaveLength(0);
    await expect(stat(configFile())).rejects.toThrow();
  });

  it('"always" writes the rule into config.json atomically, keeping every other key', async () => {
    await mkdir(path.dirname(configFile()), { recursive: true });
    await writeFile(configFile(), JSON.stringify({ edits: { mode: 'ask' }, tests: { go: 'go test ./...' }, permissions: [{ kind: 'bash', pattern: 'ls', action: 'allow' }] }));
    // Trusted before the answer, so still trusted after it: the person's own change keeps trust.
    await user.trust(root);
    const { gate, engine, queue, requests } = setup();
    const p = gate.authorize({ query: { kind: 'bash', command: 'npm run build' }, tool: 'bash', summary: 'npm run build' });
    await vitestUntil(() => requests.length === 1);
    queue.answer(requests[0].id, { answer: 'always' });
    expect((await p).by).toBe('always');
    expect(JSON.parse(await readFile(configFile(), 'utf8'))).toEqual({
      edits: { mode: 'ask' },
      tests: { go: 'go test ./...' },
      permissions: [
        { kind: 'bash', pattern: 'ls', action: 'allow' },
        { kind: 'bash', pattern: 'npm run build *', action: 'allow' },
      ],
    });
    expect(await engine.decide({ kind: 'bash', command: 'npm run build --prod' })).toMatchObject({ action: 'allow', rule: { source: 'project', origin: '.loupe/config.json permissions[1]' } });
  });

  it('"always" against a malformed config.json leaves the file alone and keeps the rule for the session', async () => {
    await mkdir(path.dirname(configFile()), { recursive: true });
    const broken = '{ "permissions": [ oops ] }';
    await writeFile(configFile(), broken);
    const { gate, engine, queue, warnings } = setup();
    queue.setResponder(async () => ({ answer: 'always' }));
    await gate.authorize({ query: { kind: 'bash', command: 'make' }, tool: 'bash', summary: 'make' });
    expect(await readFile(configFile(), 'utf8')).toBe(broken);
    expect(warnings[0]).toMatch(/session only: \.loupe\/config\.json could not be updated \(\.loupe\/config\.json:1:20: expected a value but found 'o'\)/);
    expect(await engine.decide({ kind: 'bash', command: 'make all' })).toMatchObject({ action: 'allow', rule: { source: 'session' } });
  });

  it('deny returns the user\u2019s message to the model', async () => {
    const { gate, queue } = setup();
    queue.setResponder(async () => ({ answer: 'deny', message: 'use pnpm instead' }));
    await expect(gate.authorize({ query: { kind: 'bash', command: 'npm i' }, tool: 'bash', summary: 'npm i' })).rejects.toMatchObject({
      code: 'PERMISSION_DENIED',
      message: 'The user denied npm i: "use pnpm instead"',
    });
  });

  it('unattended (headless, no elicitation): denied at once, naming the rule to add', async () => {
    const { gate } = setup('deny');
    await expect(gate.authorize({ query: { kind: 'bash', command: 'make test' }, tool: 'bash', summary: 'make test' })).rejects.toMatchObject({
      code: 'PERMISSION_DENIED',
      message: expect.stringContaining('add {"kind":"bash","pattern":"make test *","action":"allow"} to "permissions" in .loupe/config.json'),
    });
  });

  it('says who denied in details, by how the answer came, never by what its message says', async () => {
    const ask = (gate: PermissionGate) => gate.authorize({ query: { kind: 'bash', command: 'make test' }, tool: 'bash', summary: 'make test' });
    // A person may type anything, including the words the unattended queue uses.
    const words = ['Nobody is here to approve it.', 'nobody can approve it here', 'the user chose decline', '', ' '];
    for (const message of words) {
      const { gate, queue } = setup();
      queue.setResponder(async () => ({ answer: 'deny', message }));
      const err = await ask(gate).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'PERMISSION_DENIED', details: { denied_by: 'user', ...(message ? { message } : {}) } });
      expect((err as Error).message).toMatch(/^The user denied make test/);
    }
    await expect(ask(setup('deny').gate)).rejects.toMatchObject({ details: { denied_by: 'unattended' }, message: expect.stringContaining('nobody can approve it here') });
    await config.addRules([{ kind: 'bash', pattern: 'make *', action: 'deny' }]);
    await expect(ask(setup().gate)).rejects.toMatchObject({ details: { denied_by: 'rule', rule: expect.stringContaining('make *') } });
  });

  it('a gate bound to a tool call names the call and its request on the question', async () => {
    const { gate, queue, requests } = setup();
    const p = gate.forCall({ call_id: 'call_7', correlation_id: 'req-9' }).authorize({ query: { kind: 'bash', command: 'make' }, tool: 'bash', summary: 'make' });
    await vitestUntil(() => requests.length === 1);
    expect(requests[0]).toMatchObject({ call_id: 'call_7', correlation_id: 'req-9' });
    queue.answer(requests[0].id, { answer: 'once' });
    await p;
  });

  it('a responder that cannot answer (no elicitation support) falls through to the queue', async () => {
    const { gate, queue, requests } = setup();
    queue.setResponder(async () => null);
    const p = gate.authorize({ query: { kind: 'webfetch', url: 'https://example.com/' }, tool: 'webfetch', summary: 'GET https://example.com/' });
    await vitestUntil(() => requests.length === 1);
    queue.answer(requests[0].id, { answer: 'once' });
    expect((await p).by).toBe('once');
  });

  it('an aborted request leaves the queue and rejects with ABORTED', async () => {
    const { gate, queue, requests } = setup();
    const ac = new AbortController();
    const p = gate.authorize({ query: { kind: 'bash', command: 'make' }, tool: 'bash', summary: 'make', signal: ac.signal });
    await vitestUntil(() => requests.length === 1);
    ac.abort();
    await expect(p).rejects.toMatchObject({ code: 'ABORTED' });
    expect(queue.list()).toEqual([]);
    expect(queue.answer(requests[0].id, { answer: 'once' })).toBe(false);
  });
});

async function vitestUntil(probe: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !probe(); i++) await new Promise((r) => setTimeout(r, 5));
  if (!probe()) throw new Error('condition not met');
}

describe('an untrusted folder whose config would allow the call', () => {
  it('says so on the card, and trusting the folder lets the waiting call through', async () => {
    await mkdir(path.dirname(configFile()), { recursive: true });
    await writeFile(configFile(), JSON.stringify({ permissions: [{ kind: 'bash', pattern: 'npm test*', action: 'allow' }] }));
    const { gate, queue, requests } = setup();
    const waiting = gate.authorize({ query: { kind: 'bash', command: 'npm test' }, tool: 'bash', summary: 'npm test' });
    await until(() => requests.length === 1);
    expect(requests[0].trust_would_allow).toBe('allow bash "npm test*" from .loupe/config.json permissions[0]');
    expect(requests[0].reason).toBe("npm test: the folder's own config allows it, but that rule is off until the folder is trusted, so bash asks");
    // An unrelated command's card says nothing of trust.
    const other = gate.authorize({ query: { kind: 'bash', command: 'rm -rf build' }, tool: 'bash', summary: 'rm -rf build' });
    await until(() => requests.length === 2);
    expect(requests[1].trust_would_allow).toBeUndefined();

    await user.trust(root);
    await queue.recheck();
    await expect(waiting).resolves.toMatchObject({ by: 'once' });
    expect(queue.list().map((r) => r.summary)).toEqual(['rm -rf build']);
    queue.answer(queue.list()[0].id, { answer: 'deny' });
    await expect(other).rejects.toThrow();
  });
});
