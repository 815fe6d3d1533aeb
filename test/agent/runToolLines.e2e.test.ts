// `loupe run` prints each call as its tool summarises it, and --json events carry the tool's
// title, effect and summary: the same words the chat card shows. Needs `npm run build` first.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runLoupe, useCliFixture } from '../support/cli';
import { git, writeTree } from '../support/tmp';
import { call } from './agentHarness';

const fx = useCliFixture('loupe-run-lines-');

async function repo(name: string): Promise<string> {
  const dir = path.join(fx.sandbox, name);
  await writeTree(dir, { 'calc.js': 'exports.add = (a, b) => a - b;\nexports.sub = (a, b) => a - b;\n' });
  git(dir, 'init', '-q');
  return dir;
}

const turns = () => [
  { toolCalls: [call('c1', 'read_file', { path: 'calc.js' }), call('c2', 'grep', { pattern: 'exports', path: 'calc.js' })] },
  { toolCalls: [call('c3', 'code_modify', { file_path: 'calc.js', operation: 'replace', line_range: [1, 1], new_content: 'exports.add = (a, b) => a + b;' })] },
  { toolCalls: [call('c4', 'list_files', { pattern: '*.js' })] },
  { content: 'Done.' },
];

const loupe = (args: string[]) =>
  runLoupe(['run', ...args], { env: { LOUPE_HOME: path.join(fx.sandbox, 'home'), LOUPE_KEYCHAIN: 'off', LOUPE_MODEL: 'scripted', OPENAI_BASE_URL: fx.llm.baseURL, OPENAI_API_KEY: 'k' } });

describe('loupe run tool lines', () => {
  it('prints the summary each tool gives of its call', async () => {
    const dir = await repo('human');
    fx.llm.enqueue(...turns());
    const r = await loupe(['--cwd', dir, '--yes', 'fix add']);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n').filter((l) => l.startsWith('→ '));
    expect(lines).toEqual(['→ read_file calc.js', '→ grep exports in calc.js', '→ code_modify replace calc.js 1-1', '→ list_files *.js']);
  });

  it('--json: tool_call_started carries title, effect and summary', async () => {
    const dir = await repo('json');
    fx.llm.enqueue(...turns());
    const r = await loupe(['--cwd', dir, '--yes', '--json', 'fix add']);
    expect(r.code).toBe(0);
    const started = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l)).filter((e) => e.type === 'tool_call_started');
    expect(started.map((e) => [e.tool, e.title, e.effect, e.summary])).toEqual([
      ['read_file', 'Read file', 'read', 'calc.js'],
      ['grep', 'Search file contents', 'read', 'exports in calc.js'],
      ['code_modify', 'Change lines of a file', 'write', 'replace calc.js 1-1'],
      ['list_files', 'List files', 'read', '*.js'],
    ]);
  });
});
