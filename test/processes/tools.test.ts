// The process tools as the model calls them: bash run_in_background with wait_for (met, timed
// out with the output so far), process_list, process_output (only what is new), process_wait,
// process_kill, and clear errors for an unknown id or a wait_for without the background.
import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../support/toolHarness';

let h: Harness;
afterEach(async () => {
  await h?.ctx.processes?.dispose();
  await h?.cleanup();
});

describe('process tools', () => {
  it('wait_for regex and port time out cleanly with the output so far; the process keeps running', async () => {
    h = await harness();
    const regex = await h.call('bash', { command: 'echo partial output; sleep 60', description: 'x', run_in_background: true, wait_for: { regex: 'never printed', timeout: 400 } });
    expect(regex.ok).toBe(false);
    expect(regex.error?.code).toBe('TIMEOUT');
    expect(regex.output).toContain('partial output');
    expect(regex.data).toMatchObject({ process_id: 'proc-1', status: 'running', exit_code: null, wait: { timed_out: true } });
    const port = await h.call('bash', { command: 'echo waiting for a port; sleep 60', description: 'x', run_in_background: true, wait_for: { port: 1, timeout: 400 } });
    expect(port.error?.code).toBe('TIMEOUT');
    expect(port.output).toContain('waiting for a port');
    const again = await h.call('process_wait', { id: 'proc-2', wait_for: { port: 1 }, timeout: 300 });
    expect(again.error?.code).toBe('TIMEOUT');
    const list = await h.call('process_list', {});
    expect((list.data!.processes as { status: string }[]).map((p) => p.status)).toEqual(['running', 'running']);
  });

  it('process_output gives only what is new since the last read; process_kill stops it; unknown ids are clear errors', async () => {
    h = await harness();
    const started = await h.call('bash', { command: 'echo one; sleep 0.3; echo two; sleep 60', description: 'x', run_in_background: true, wait_for: { regex: '^one$' } });
    expect(started.ok, started.output).toBe(true);
    expect(started.data).toMatchObject({ status: 'ready', ports: [], exit_code: null });
    expect(typeof started.data!.sandboxed).toBe('boolean');
    const waited = await h.call('process_wait', { id: 'proc-1', wait_for: { regex: 'two' } });
    expect(waited.output).toContain('two');
    expect(waited.output).not.toMatch(/^one$/m);
    const none = await h.call('process_output', { id: 'proc-1' });
    expect(none.output).toContain('(no new output)');
    const all = await h.call('process_output', { id: 'proc-1', since: 0 });
    expect(all.output).toMatch(/one\ntwo/);
    const killed = await h.call('process_kill', { id: 'proc-1' });
    expect(killed.data).toMatchObject({ process_id: 'proc-1', status: 'killed' });
    for (const tool of ['process_output', 'process_kill', 'process_wait']) {
      const r = await h.call(tool, { id: 'proc-9', wait_for: { exit: true } });
      expect(r.error?.code, tool).toBe('PROCESS_NOT_FOUND');
      expect(r.error?.message).toContain('proc-1');
    }
    const bad = await h.call('bash', { command: 'true', description: 'x', wait_for: { exit: true } });
    expect(bad.error?.code).toBe('INVALID_ARGUMENT');
  });
});
