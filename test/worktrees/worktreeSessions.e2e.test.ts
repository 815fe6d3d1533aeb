// Two `loupe run --worktree` sessions edit the same file differently at once; the main folder is
// untouched; each worktree holds its edit and its own log; `loupe worktree apply` lands the first
// as a modification of the main folder and refuses the second with the conflict, changing
// nothing; discarding the other shows its uncommitted change and keeps it until confirmed. The built CLI against the scripted model. Needs `npm run build` first.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runLoupe, useCliFixture } from '../support/cli';
import { committedRepo, git } from '../support/tmp';
import type { RecordedRequest, ScriptedReply } from '../support/scriptedLlm';
import { call } from '../agent/agentHarness';

const fx = useCliFixture('loupe-wt-sessions-');

const SOURCE = "module.exports = 'hello';\n";
const promptOf = (req: RecordedRequest) => String(req.body.messages?.find((m) => m.role === 'user')?.content ?? '');
const toolCount = (req: RecordedRequest) => req.body.messages?.filter((m) => m.role === 'tool').length ?? 0;

const logOf = async (root: string) =>
  (await readFile(path.join(root, '.loupe/modifications.jsonl'), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

it('two worktree sessions at once, then one applied to main and the other refused over the conflict', async () => {
  const main = await committedRepo(path.join(fx.sandbox, 'repo'), { 'greet.js': SOURCE, 'README.md': '# r\n' });
  // Neither session gets its first answer until both have asked: they run at once.
  const asked = new Set<string>();
  let bothAsked!: () => void;
  const together = new Promise<void>((resolve) => (bothAsked = resolve));
  fx.llm.respondWith(async (req): Promise<ScriptedReply> => {
    const who = /session (\w)/.exec(promptOf(req))?.[1] ?? '?';
    const step = toolCount(req);
    if (step === 0) {
      asked.add(who);
      if (asked.size === 2) bothAsked();
      await together;
      return { toolCalls: [call(`r${who}`, 'read_file', { path: 'greet.js' })] };
    }
    if (step === 1) return { toolCalls: [call(`e${who}`, 'edit_file', { path: 'greet.js', old_str: "'hello'", new_str: `'hello from ${who}'` })] };
    return { content: `Done in session ${who}.` };
  });
  const env = { LOUPE_HOME: path.join(fx.sandbox, 'home'), LOUPE_KEYCHAIN: 'off', LOUPE_MODEL: 'scripted', OPENAI_BASE_URL: fx.llm.baseURL, OPENAI_API_KEY: 'k' };
  const run = (who: string) => runLoupe(['run', '--cwd', main, '--worktree', who, '--yes', `greet differently: session ${who}`], { env, killAfterMs: 90_000 });
  const [a, b] = await Promise.all([run('a'), run('b')]);
  for (const r of [a, b]) {
    expect(r.stderr).not.toMatch(/LLM_ERROR|INTERNAL/);
    expect(r.code, r.stderr).toBe(0);
  }
  expect(a.stderr).toMatch(/made worktree a at .*repo\.loupe-worktrees\/a, branch loupe\/a/);

  // The main folder is untouched: same bytes, git clean, no log of its own.
  expect(await readFile(path.join(main, 'greet.js'), 'utf8')).toBe(SOURCE);
  expect(git(main, 'status', '--porcelain', '--untracked-files=all')).toBe('');
  expect(existsSync(path.join(main, '.loupe'))).toBe(false);
  // Each worktree has its own edit and its own log.
  const wts = path.join(fx.sandbox, 'repo.loupe-worktrees');
  for (const who of ['a', 'b']) {
    expect(await readFile(path.join(wts, who, 'greet.js'), 'utf8')).toBe(`module.exports = 'hello from ${who}';\n`);
    const log = await logOf(path.join(wts, who));
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ tool: 'edit_file', file: 'greet.js' });
    expect(git(path.join(wts, who), 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe(`loupe/${who}`);
  }
  expect((await logOf(path.join(wts, 'a')))[0].session_id).not.toBe((await logOf(path.join(wts, 'b')))[0].session_id);

  // Applying a: a modification of the main folder.
  const applyA = await runLoupe(['worktree', 'apply', 'a', '--cwd', main, '--json'], { env });
  expect(applyA.code, applyA.stderr).toBe(0);
  expect(JSON.parse(applyA.stdout)).toMatchObject({ status: 'applied', files: ['greet.js'] });
  expect(await readFile(path.join(main, 'greet.js'), 'utf8')).toBe("module.exports = 'hello from a';\n");
  const mainLog = await logOf(main);
  expect(mainLog).toEqual([expect.objectContaining({ tool: 'apply_worktree', file: 'greet.js', group_kind: 'worktree', operation: 'overwrite' })]);

  // Applying b: the conflict is named and nothing changes.
  const applyB = await runLoupe(['worktree', 'apply', 'b', '--cwd', main, '--json'], { env });
  expect(applyB.code).toBe(1);
  expect(JSON.parse(applyB.stdout)).toMatchObject({ status: 'refused', conflicts: [{ file: 'greet.js', why: expect.stringMatching(/changed in both/) }] });
  expect(applyB.stderr).toMatch(/! greet\.js: changed in both.*\nNothing was changed/s);
  expect(await readFile(path.join(main, 'greet.js'), 'utf8')).toBe("module.exports = 'hello from a';\n");
  expect(await logOf(main)).toHaveLength(1);

  // Discarding b shows its uncommitted change and, without a yes, keeps it (the confirmed removal: worktrees.test.ts).
  const declined = await runLoupe(['worktree', 'discard', 'b', '--cwd', main, '--json'], { env });
  expect(declined.code).toBe(1);
  expect(declined.stderr).toMatch(/would lose:\n {2}uncommitted M {2}greet\.js\n.*Kept\. To remove it: loupe worktree discard b --confirm [0-9a-f]{64}/s);
  expect(JSON.parse(declined.stdout)).toMatchObject({ status: 'kept', report: { uncommitted: ['M  greet.js'] } });
  expect(await readFile(path.join(wts, 'b', 'greet.js'), 'utf8')).toBe("module.exports = 'hello from b';\n");
});
