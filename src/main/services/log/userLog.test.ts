import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/support/tmp';
import { userLog } from './userLog';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir('loupe-userlog-')));
afterEach(() => cleanup());

function run(stderr: 'always' | 'env' | 'never', env: NodeJS.ProcessEnv) {
  const out: string[] = [];
  const log = userLog({ configDir: path.join(dir, stderr), stderr, env, writeStderr: (t) => out.push(t) });
  const err = new RangeError('offset out of range');
  log.logger.error('tool.crashed', { tool: 'read_file', error: err });
  return { out: out.join(''), file: log.file, text: readFileSync(log.file, 'utf8') };
}

describe('userLog', () => {
  it('writes the file under the config dir whatever stderr does', () => {
    for (const mode of ['always', 'env', 'never'] as const) {
      const r = run(mode, {});
      expect(r.file).toBe(path.join(dir, mode, 'logs', 'loupe.log'));
      expect(JSON.parse(r.text)).toMatchObject({ event: 'tool.crashed', error: { name: 'RangeError', stack: expect.stringContaining('offset out of range') } });
    }
  });

  it('stderr: always for mcp, only with LOUPE_LOG for run, never for the app', () => {
    expect(run('always', {}).out).not.toBe('');
    expect(run('env', {}).out).toBe('');
    expect(run('never', { LOUPE_LOG: '1' }).out).toBe('');
    expect(run('env', { LOUPE_LOG: '1' }).out).not.toBe('');
  });

  it('stderr is for people: level, event, fields on one line, then the stack indented; LOUPE_LOG=json keeps JSON lines', () => {
    const human = run('env', { LOUPE_LOG: '1' }).out;
    const [head, ...stack] = human.trimEnd().split('\n');
    expect(head).toBe('loupe: error tool.crashed tool=read_file error="offset out of range"');
    expect(stack[0]).toBe('    RangeError: offset out of range');
    expect(stack.slice(1).every((l) => l.startsWith('        at ') || l.startsWith('    '))).toBe(true);
    const json = run('env', { LOUPE_LOG: 'json' }).out;
    expect(JSON.parse(json)).toMatchObject({ level: 'error', event: 'tool.crashed', tool: 'read_file' });
  });
});
