// run_tests on real projects it creates: vitest and node:test runs, parsed from their real output.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../support/toolHarness';

const VITEST = path.resolve(__dirname, '../../node_modules/.bin/vitest');
let h: Harness;
afterEach(() => h?.cleanup());

const nodeTests = `import test from 'node:test';
import assert from 'node:assert';
test('adds', () => assert.equal(1 + 1, 2));
test('is broken', () => assert.equal(2 + 2, 5));
test('skipped', { skip: true }, () => {});
test('group', async (t) => {
  await t.test('inner ok', () => {});
  await t.test('inner broken', () => { throw new Error('boom'); });
});
`;

describe('run_tests', () => {
  it('runs a real vitest project (configured command) and attaches results to the correlation', async () => {
    h = await harness();
    await h.write('math.test.ts', "import { expect, it } from 'vitest';\nit('adds', () => expect(1 + 1).toBe(2));\nit('is broken', () => expect(2 + 2).toBe(5));\nit.skip('later', () => {});\n");
    await h.write('.loupe/config.json', JSON.stringify({ tests: { typescript: `${VITEST} run` }, permissions: [{ kind: 'test', pattern: `${VITEST} run*`, action: 'allow' }] }));
    await h.trust();
    await h.write('m.ts', 'x\n');
    await h.call('read_file', { path: 'm.ts' });
    const m = await h.call('code_modify', { file_path: 'm.ts', operation: 'insert_after', line: 1, new_content: 'y', correlation_id: 'req-9' });
    const res = await h.call('run_tests', { correlation_id: 'req-9', timeout_ms: 60_000 });
    expect(res.data, res.output).toMatchObject({ status: 'failed', framework: 'vitest', tests_passed: 1, tests_failed: 1, tests_skipped: 1, source: 'config' });
    expect(res.data!.failing_tests).toEqual([expect.stringContaining('is broken')]);
    expect(res.data!.recorded_for).toEqual([m.data!.modification_id]);
    const log = await h.call('modification_log', { correlation_id: 'req-9' });
    // vitest's own cache (node_modules is not ignored here) is the run's write, which it did not test.
    const mods = log.data!.modifications as { file: string; tool: string; test_results: unknown }[];
    expect(mods.find((x) => x.file === 'm.ts')).toMatchObject({ test_results: { passed: 1, failed: 1, skipped: 1, status: 'failed' } });
    expect(mods.filter((x) => x.file !== 'm.ts').map((x) => [x.tool, x.test_results])).toEqual([['run_tests', null]]);
  }, 90_000);

  // node:test counts a suite whose subtest failed as a failure too (3 = is broken, inner broken, group).
  it('runs a real node:test project detected from package.json, TAP and spec reporters alike', async () => {
    h = await harness();
    await h.write('package.json', JSON.stringify({ name: 'p', type: 'module', scripts: { test: 'node --test --test-reporter=tap' } }));
    await h.write('.loupe/config.json', JSON.stringify({ permissions: [{ kind: 'test', pattern: 'npm test *', action: 'allow' }] }));
    await h.trust();
    await h.write('math.test.js', nodeTests);
    const tap = await h.call('run_tests', {});
    expect(tap.data, tap.output).toMatchObject({ status: 'failed', framework: 'node:test', tests_passed: 2, tests_failed: 3, tests_skipped: 1, source: 'detected', command: 'npm test --silent' });
    expect(tap.data!.failing_tests).toEqual(expect.arrayContaining(['is broken', 'inner broken']));
    await h.write('package.json', JSON.stringify({ name: 'p', type: 'module', scripts: { test: 'node --test --test-reporter=spec' } }));
    const spec = await h.call('run_tests', { test_file: 'math.test.js' });
    expect(spec.data, spec.output).toMatchObject({ framework: 'node:test', tests_passed: 2, tests_failed: 3, tests_skipped: 1, command: 'npm test --silent -- math.test.js' });
    expect(spec.data!.failing_tests).toEqual(expect.arrayContaining(['is broken', 'inner broken']));
  }, 90_000);

  it('by default a model-supplied test_command runs inside the sandbox, which keeps its writes in the workspace', async () => {
    h = await harness();
    await h.write('pass.js', "console.log('# pass 1\\n# fail 0')");
    const r = await h.call('run_tests', { test_command: 'node pass.js' });
    expect(r.data, r.output).toMatchObject({ status: 'success', tests_passed: 1, source: 'argument', sandboxed: true });
  });

  it('with the sandbox off it puts a model-supplied test_command through the test permission check', async () => {
    h = await harness({ sandbox: 'off' });
    const denied = await h.call('run_tests', { test_command: 'node -e "process.exit(0)"' });
    expect(denied.error?.code).toBe('PERMISSION_DENIED');
    await h.write('.loupe/config.json', JSON.stringify({ permissions: [{ kind: 'test', pattern: 'node *', action: 'allow' }] }));
    await h.trust();
    // A script file, not `node -e`: an inline program decides its own writes, so no rule allows it.
    await h.write('pass.js', "console.log('# pass 1\\n# fail 0')");
    const allowed = await h.call('run_tests', { test_command: 'node pass.js' });
    expect(allowed.data, allowed.output).toMatchObject({ status: 'success', tests_passed: 1, source: 'argument' });
  });

  it('kills the whole process tree at the timeout', async () => {
    h = await harness();
    await h.write('.loupe/config.json', JSON.stringify({ tests: { javascript: 'sleep 30 & sleep 30; echo never' }, permissions: ['sleep *', 'echo *'].map((pattern) => ({ kind: 'test', pattern, action: 'allow' })) }));
    await h.trust();
    const t0 = Date.now();
    const res = await h.call('run_tests', { test_file: 'x.test.js', timeout_ms: 400 });
    expect(res.error?.code).toBe('TIMEOUT');
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  it('says how to configure tests when none can be found', async () => {
    h = await harness();
    const res = await h.call('run_tests', {});
    expect(res.error?.code).toBe('INVALID_ARGUMENT');
    expect(res.error?.message).toContain('.loupe/config.json');
  });
});
