// `loupe run --agent NAME`: a request of another agent, headless, through the built CLI. Its answer
// is printed, its client write is a modification of the run's request, and an agent nobody named is
// refused with what to do. Needs `npm run build` first.
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runLoupe, useCliFixture } from '../support/cli';
import { writeUserSettings } from '../support/userSettings';

const PROBE = path.resolve('test/fixtures/agents/probe.mjs');
const fx = useCliFixture('loupe-agent-cli-');

describe('loupe run --agent', () => {
  it('runs the request in the agent, prints its answer, and records its write', async () => {
    const ws = path.join(fx.sandbox, 'ws');
    const home = path.join(fx.sandbox, 'home');
    await mkdir(ws, { recursive: true });
    await writeFile(path.join(ws, 'a.txt'), 'a\n');
    writeUserSettings(home, { agents: { probe: { command: process.execPath, args: [PROBE], env: { PROBE_KEY: 'k' } } } });
    const ask = { inside: path.join(ws, 'from-client.txt'), outside: path.join(fx.sandbox, 'outside.txt'), settings: path.join(home, 'settings.json') };
    const env = { LOUPE_HOME: home, LOUPE_KEYCHAIN: 'off', OPENAI_BASE_URL: undefined, LOUPE_MODEL: undefined };
    const res = await runLoupe(['run', '--cwd', ws, '--json', '--agent', 'probe', JSON.stringify(ask)], { env, killAfterMs: 60_000 });
    expect(res.code, res.stderr).toBe(0);
    const events = res.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; text?: string; status?: string; correlation_id?: string });
    const done = events.find((e) => e.type === 'request_finished')!;
    expect(done.status).toBe('done');
    expect(JSON.parse(done.text!)).toMatchObject({ fs_inside: 'ok', mode: 'default' });
    const log = readFileSync(path.join(ws, '.loupe', 'modifications.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(log).toEqual([expect.objectContaining({ file: 'from-client.txt', tool: 'acp:probe', correlation_id: done.correlation_id })]);

    const unknown = await runLoupe(['run', '--cwd', ws, '--agent', 'nobody', 'hi'], { env });
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/AGENT_UNAVAILABLE|not available/);
    expect(unknown.stderr).toMatch(/no agent of that name/);
  });
});
