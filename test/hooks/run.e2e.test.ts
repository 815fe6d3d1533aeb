// `loupe run` with a repository's Claude Code hooks: without --trust they are listed as ignored
// and never run; with --trust they run (no card), each decision is one line of the human output,
// and --json emits {"type":"hook","event","source","decision","ms"} for it. Needs `npm run build` first.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { call } from '../agent/agentHarness';
import { runLoupe, useCliFixture } from '../support/cli';
import { git, writeTree } from '../support/tmp';
import { installScripts, projectScript, writeClaudeSettings } from './support';

const fx = useCliFixture('loupe-run-hooks-');

async function repo(name: string): Promise<string> {
  const dir = path.join(fx.sandbox, name);
  await writeTree(dir, { 'a.txt': 'alpha\n' });
  git(dir, 'init', '-q');
  await installScripts(dir, ['bash_validator.py']);
  await writeClaudeSettings(path.join(dir, '.claude/settings.json'), { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: projectScript('bash_validator.py') }] }] });
  return dir;
}

const loupe = (args: string[]) =>
  runLoupe(['run', ...args], { env: { LOUPE_HOME: path.join(fx.sandbox, 'home'), HOME: path.join(fx.sandbox, 'home'), LOUPE_KEYCHAIN: 'off', LOUPE_MODEL: 'scripted', OPENAI_BASE_URL: fx.llm.baseURL, OPENAI_API_KEY: 'k', LOUPE_LSP: 'off' } });

const turns = () => [{ toolCalls: [call('g1', 'bash', { command: 'grep -r alpha .', description: 'search' })] }, { content: 'Done.' }];

describe('loupe run and hooks', () => {
  it('untrusted: the hook is named among what is ignored, and does not run', async () => {
    const dir = await repo('untrusted');
    fx.llm.enqueue(...turns());
    const r = await loupe(['--cwd', dir, '--yes', 'search']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`PreToolUse hook (Bash) "${projectScript('bash_validator.py')}" from .claude/settings.json`);
    expect(r.stdout).not.toContain('hook PreToolUse');
    expect(r.stdout).toContain('✓ bash');
  }, 60_000);

  it('--trust: the validator blocks, one line says so', async () => {
    const dir = await repo('human');
    fx.llm.enqueue(...turns());
    const r = await loupe(['--cwd', dir, '--trust', 'search']);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    const at = lines.findIndex((l) => l.startsWith('→ bash'));
    expect(lines[at + 1]).toMatch(/^ {2}↳ hook PreToolUse deny \(\.claude\/settings\.json: python3 .*bash_validator\.py, \d+ ms\): - Use 'rg' \(ripgrep\) instead of 'grep'/);
    expect(lines[at + 2]).toContain('✗ bash: PERMISSION_DENIED');
  }, 60_000);

  it('--json: the hook event carries event, source, decision and ms', async () => {
    const dir = await repo('json');
    fx.llm.enqueue(...turns());
    const r = await loupe(['--cwd', dir, '--trust', '--json', 'search']);
    expect(r.code).toBe(0);
    const events = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const hook = events.find((e) => e.type === 'hook')!;
    expect(hook).toMatchObject({ type: 'hook', event: 'PreToolUse', source: '.claude/settings.json', decision: 'deny', call_id: 'g1' });
    expect(typeof hook.ms).toBe('number');
    // The hooks' approval came with --trust: nothing was kept in the person's settings.
    expect(await readFile(path.join(fx.sandbox, 'home', 'settings.json'), 'utf8').catch(() => '')).not.toContain('hooks_approved');
  }, 60_000);
});
