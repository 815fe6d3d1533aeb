// Every tool's result matches the outputSchema it publishes (docs/architecture.md, "A tool call,
// from the model to the disk"): generated calls of every tool in every result shape — success,
// error, timed out, aborted, in the background with each wait_for — on a real workspace, each
// result checked the way an MCP client checks it: `loupe mcp`'s structuredContent against the
// tool's published schema, with the MCP SDK's own validator. A tool without shapes here fails the
// test, so a new tool brings its own.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import fc from 'fast-check';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toCallToolResult } from '../../src/main/cli/mcp';
import { LoupeError } from '../../src/main/errors';
import { createToolContext } from '../../src/main/agent/tools/context';
import { createToolRegistry, failure } from '../../src/main/agent/tools/registry';
import type { ToolOutputHook } from '../../src/main/agent/tools/bash';
import type { ToolContext, ToolResult } from '../../src/main/agent/tools/types';
import { recordLogger, type LogRecord } from '../../src/main/services/log/logger';
import type { WorkspaceServices } from '../../src/main/workspace/compose';
import { ERROR_CODES } from '../../src/shared/errors';
import { testServices } from '../support/services';
import { git, tempWorkspace, writeTree, type TempWorkspace } from '../support/tmp';

const registry = createToolRegistry();
const validator = new AjvJsonSchemaValidator();
const validators = new Map(registry.list().map((t) => [t.name, validator.getValidator(registry.outputSchema(t) as never)]));

let t: TempWorkspace;
let services: WorkspaceServices;
let ctx: ToolContext;
let web: http.Server;
let webUrl: string;
const logged: LogRecord[] = [];

beforeAll(async () => {
  t = await tempWorkspace('loupe-result-schemas-');
  git(t.root, 'init', '-q');
  await writeTree(t.root, { 'src/a.ts': 'export const a = 1;\nexport const b = 2;\n', 'README.md': '# p\nport 3000\n', 'bin.dat': 'x\u0000y' });
  // Every question is answered yes: the shapes after the permission are the subject here.
  services = testServices(t.root, { configDir: t.home, asker: { kind: 'responder', respond: async () => ({ answer: 'once' }) }, logger: recordLogger((r) => logged.push(r)) });
  ctx = createToolContext(services, { corrector: null });
  web = http.createServer((req, res) => {
    if (req.url === '/missing') return void res.writeHead(404).end('no');
    res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Hello</h1><p>page</p>');
  });
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  webUrl = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
}, 30_000);

afterAll(async () => {
  await services?.dispose();
  await new Promise((resolve) => web?.close(resolve));
  await t?.cleanup();
});

/**
 * Calls a tool as `loupe mcp` does and checks its structuredContent against the tool's published
 * schema; the registry must not have had to drop a result's data for breaking it either.
 */
async function call(tool: string, args: Record<string, unknown>, stop?: Stop): Promise<ToolResult> {
  const before = logged.length;
  const result = await registry.call(tool, args, stop ? stop(ctx) : ctx);
  const dropped = logged.slice(before).find((l) => l.event === 'tool.result_invalid' || l.event === 'tool.crashed');
  if (dropped) throw new Error(`${tool} ${JSON.stringify(args)}: ${dropped.event}: ${JSON.stringify(dropped)}`);
  const structured = toCallToolResult(result, 0).structuredContent;
  const check = validators.get(tool)!(structured);
  if (!check.valid) throw new Error(`${tool} ${JSON.stringify(args)} breaks its outputSchema: ${check.errorMessage}\n${JSON.stringify(structured, null, 1).slice(0, 3000)}`);
  return result;
}

/** A port nothing listens on now (the process about to start takes it). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
    s.once('error', reject);
  });
}

/** How a call is stopped: the person presses Stop once the call is under way, never by a clock. */
type Stop = (base: ToolContext) => ToolContext & ToolOutputHook;
/** Stop once the command has printed something: it runs. */
const onOutput: Stop = (base) => {
  const stop = new AbortController();
  return { ...base, signal: stop.signal, onToolOutput: () => stop.abort() };
};
/** Stop once the background process has started: the call waits for it now. */
const onStarted: Stop = (base) => {
  const stop = new AbortController();
  const off = services.processes.subscribe({
    onStarted: () => {
      off();
      stop.abort();
    },
  });
  return { ...base, signal: stop.signal };
};
/** Stop at once: the process was started before the call. */
const atOnce: Stop = (base) => ({ ...base, signal: AbortSignal.abort() });

/** What the shape must have produced, so a shape that silently became another fails. */
type Outcome = 'ok' | (typeof ERROR_CODES)[number];
interface Shape {
  gen: fc.Arbitrary<unknown>;
  run(v: unknown): Promise<ToolResult>;
  outcome: Outcome;
}
const shape = <T,>(gen: fc.Arbitrary<T>, run: (v: T) => Promise<ToolResult>, outcome: Outcome): Shape => ({ gen, run: run as (v: unknown) => Promise<ToolResult>, outcome });
const opt = <T,>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
const word = fc.stringMatching(/^[a-z]{1,8}$/);
const text = fc.string({ maxLength: 40 }).map((s) => s.split(String.fromCharCode(0)).join(''));
const lines = fc.array(fc.stringMatching(/^[ -~]{0,30}$/), { minLength: 1, maxLength: 6 }).map((l) => `${l.join('\n')}\n`);
let n = 0;
const fresh = (ext = 'txt') => `gen/f${++n}.${ext}`;

/** A background process, and the process tools' shapes on it; every process is stopped after its shape. */
async function background(args: Record<string, unknown>, stop?: Stop): Promise<ToolResult> {
  try {
    return await call('bash', { description: 'background', run_in_background: true, ...args }, stop);
  } finally {
    await services.processes.stopAll('the shape was checked');
  }
}

async function withProcess<T>(command: string, use: (id: string) => Promise<T>): Promise<T> {
  const started = await call('bash', { command, description: 'for the process tools', run_in_background: true });
  try {
    return await use(started.data!.process_id as string);
  } finally {
    await services.processes.stopAll('the shape was checked');
  }
}

/** A request's children as the tools reach them, ending as generated: the host's own children are tested in test/subagents. */
const outcomeGen = (status: 'done' | 'failed' | 'stopped' | 'running') =>
  fc.record({
    agent_id: word.map((w) => `ses-${w}`),
    agent_type: fc.constantFrom('explore', 'general', 'reviewer'),
    description: text.filter((d) => d.trim().length > 0),
    status: fc.constant(status),
    text,
    turns: fc.nat(25),
    tokens: fc.nat(300_000),
    cost_usd: opt(fc.double({ min: 0, max: 5, noNaN: true })),
    files: fc.array(word.map((w) => `src/${w}.ts`), { maxLength: 3 }),
    stopped_by: status === 'stopped' ? fc.constantFrom('request' as const, 'person' as const, 'budget' as const) : fc.constant(undefined),
    reason: opt(text),
    worktree: opt(word),
  });
type Outcomes = ReturnType<typeof outcomeGen> extends fc.Arbitrary<infer O> ? O : never;
/** The call's context with children that end as `o` (or refuse to start with `refuse`). */
const children = (o: Outcomes, refuse?: LoupeError): Stop => (base) => ({
  ...base,
  subagents: {
    types: async () => [{ name: o.agent_type, description: 'a type', read_only: false }],
    start: async () => {
      if (refuse) throw refuse;
      return { agentId: o.agent_id, result: Promise.resolve(o) };
    },
    wait: async () => o,
    stop: async () => o,
  },
});
const task = { description: 'look around', prompt: 'Find where the port is set.' };

const SHAPES: Record<string, Record<string, Shape>> = {
  agent: {
    done: shape(outcomeGen('done'), (o) => call('agent', task, children(o)), 'ok'),
    failed: shape(outcomeGen('failed'), (o) => call('agent', task, children(o)), 'LLM_ERROR'),
    stopped: shape(outcomeGen('stopped'), (o) => call('agent', task, children(o)), 'ABORTED'),
    background: shape(outcomeGen('running'), (o) => call('agent', { ...task, background: true }, children(o)), 'ok'),
    refused: shape(outcomeGen('done'), (o) => call('agent', task, children(o, new LoupeError('AGENT_LIMIT', 'Four agents already run for this request.'))), 'AGENT_LIMIT'),
    none_here: shape(fc.constant(null), () => call('agent', task), 'INVALID_ARGUMENT'),
  },
  agent_wait: {
    done: shape(outcomeGen('done'), (o) => call('agent_wait', { id: o.agent_id }, children(o)), 'ok'),
    running: shape(outcomeGen('running'), (o) => call('agent_wait', { id: o.agent_id }, children(o)), 'ok'),
  },
  agent_stop: {
    stopped: shape(outcomeGen('stopped'), (o) => call('agent_stop', { id: o.agent_id }, children(o)), 'ok'),
  },
  skill: {
    // A skill written fresh for each run (the catalog looks again at each list), then loaded by name.
    loaded: shape(fc.record({ description: text, tools: opt(fc.array(fc.constantFrom('Read', 'Bash(git status:*)', 'Grep', 'Frobnicate'), { maxLength: 3 })) }), async (v) => {
      const name = `gen-${++n}`;
      const head = [`name: ${name}`, `description: ${JSON.stringify(v.description || 'a skill')}`, ...(v.tools ? [`allowed-tools: ${v.tools.join(', ')}`] : [])];
      await writeTree(t.root, { [`.claude/skills/${name}/SKILL.md`]: `---\n${head.join('\n')}\n---\nDo the thing.\n`, [`.claude/skills/${name}/scripts/run.sh`]: 'echo hi\n' });
      return call('skill', { name });
    }, 'ok'),
    unparsed: shape(word, async (w) => {
      const name = `odd-${++n}`;
      await writeTree(t.root, { [`.claude/skills/${name}/SKILL.md`]: `---\nname: ${name}\ndescription: a: colon ${w}: here\n  [broken\n---\nBody.\n` });
      return call('skill', { name });
    }, 'ok'),
    missing: shape(word, (w) => call('skill', { name: `no-such-${w}` }), 'INVALID_ARGUMENT'),
  },
  read_file: {
    whole: shape(fc.record({ line_numbers: opt(fc.boolean()) }), (v) => call('read_file', { path: 'src/a.ts', ...v }), 'ok'),
    window: shape(fc.record({ offset: fc.nat(4), limit: fc.integer({ min: 1, max: 5 }) }), (v) => call('read_file', { path: 'README.md', ...v }), 'ok'),
    missing: shape(word, (w) => call('read_file', { path: `nope/${w}.ts` }), 'FILE_NOT_FOUND'),
    binary: shape(fc.constant(null), () => call('read_file', { path: 'bin.dat' }), 'BINARY_FILE'),
    outside: shape(word, (w) => call('read_file', { path: `../${w}` }), 'PATH_OUTSIDE_WORKSPACE'),
  },
  write_file: {
    create: shape(lines, (c) => call('write_file', { path: fresh(), content: c, reason: 'shape' }), 'ok'),
    overwrite: shape(lines, async (c) => {
      const file = fresh();
      await call('write_file', { path: file, content: 'first\n' });
      return call('write_file', { path: file, content: c });
    }, 'ok'),
    unread: shape(lines, async (c) => {
      const file = fresh();
      await writeTree(t.root, { [file]: 'outside\n' });
      return call('write_file', { path: file, content: c });
    }, 'FILE_NOT_READ'),
  },
  edit_file: {
    // A name equal to the one replaced would be no edit (EDIT_NO_CHANGE), another shape.
    exact: shape(word.filter((w) => w !== 'y'), async (w) => {
      const file = fresh('ts');
      await call('write_file', { path: file, content: 'const x = 1;\nconst y = 2;\n' });
      return call('edit_file', { path: file, old_str: 'const y = 2;', new_str: `const ${w} = 2;` });
    }, 'ok'),
    absent: shape(word, async (w) => {
      const file = fresh('ts');
      await call('write_file', { path: file, content: 'const x = 1;\n' });
      return call('edit_file', { path: file, old_str: `zz${w}zz`, new_str: 'q' });
    }, 'EDIT_NO_OCCURRENCE_FOUND'),
    create: shape(lines, (c) => call('edit_file', { path: fresh(), old_str: '', new_str: c }), 'ok'),
  },
  code_modify: {
    // Replacing line 2 ("b") with "b" would change nothing (EDIT_NO_CHANGE), another shape.
    replace: shape(fc.tuple(fc.constantFrom('replace', 'insert_before', 'insert_after', 'delete'), word.filter((w) => w !== 'b')), async ([operation, w]) => {
      const file = fresh('ts');
      await call('write_file', { path: file, content: 'a\nb\nc\n' });
      const where = operation === 'replace' || operation === 'delete' ? { line_range: [2, 2] } : { line: 2 };
      return call('code_modify', { file_path: file, operation, ...where, ...(operation === 'delete' ? {} : { new_content: w }) });
    }, 'ok'),
    unread: shape(word, async (w) => {
      const file = fresh('ts');
      await writeTree(t.root, { [file]: 'a\n' });
      return call('code_modify', { file_path: file, operation: 'insert_after', line: 1, new_content: w });
    }, 'FILE_NOT_READ'),
  },
  code_rollback: {
    one: shape(lines, async (c) => {
      const written = await call('write_file', { path: fresh(), content: c });
      return call('code_rollback', { modification_id: written.data!.modification_id });
    }, 'ok'),
    unknown: shape(word, (w) => call('code_rollback', { modification_id: `mod-${w}` }), 'MODIFICATION_NOT_FOUND'),
  },
  modification_log: {
    any: shape(fc.record({ limit: opt(fc.integer({ min: 1, max: 20 })), file: opt(fc.constantFrom('src/a.ts', 'gen/f1.txt')), correlation_id: opt(word) }), (v) => call('modification_log', v), 'ok'),
  },
  grep: {
    any: shape(
      fc.record({ pattern: fc.constantFrom('export', 'port', 'nothing-here', 'a|b'), output_mode: opt(fc.constantFrom('content', 'files_with_matches', 'count')), '-C': opt(fc.nat(2)), head_limit: opt(fc.integer({ min: 1, max: 5 })) }),
      (v) => call('grep', v),
      'ok',
    ),
    outside: shape(word, (w) => call('grep', { pattern: 'x', path: `../${w}` }), 'PATH_OUTSIDE_WORKSPACE'),
  },
  code_search: {
    any: shape(fc.record({ pattern: fc.constantFrom('export', 'const', 'absent-thing'), limit: opt(fc.integer({ min: 1, max: 5 })) }), (v) => call('code_search', v), 'ok'),
  },
  list_files: {
    any: shape(fc.record({ pattern: opt(fc.constantFrom('*.ts', '**/*.md', '*.nothing')), limit: opt(fc.integer({ min: 1, max: 5 })) }), (v) => call('list_files', v), 'ok'),
  },
  webfetch: {
    page: shape(fc.constantFrom('markdown', 'text', 'html'), (format) => call('webfetch', { url: `${webUrl}/page`, format }), 'ok'),
    missing: shape(fc.constant(null), () => call('webfetch', { url: `${webUrl}/missing` }), 'FETCH_FAILED'),
  },
  bash: {
    exits: shape(fc.integer({ min: 0, max: 3 }), (code) => call('bash', { command: `echo out; exit ${code}`, description: 'exits' }), 'ok'),
    timed_out: shape(fc.integer({ min: 100, max: 300 }), (ms) => call('bash', { command: 'echo before; sleep 20', description: 'sleeps', timeout: ms }), 'TIMEOUT'),
    aborted: shape(text, (s) => call('bash', { command: `echo ${JSON.stringify(`before ${s}`)}; sleep 20`, description: 'sleeps' }, onOutput), 'ABORTED'),
    background: shape(text, (s) => background({ command: `echo ${JSON.stringify(s)}; sleep 20` }), 'ok'),
    wait_regex_met: shape(word, (w) => background({ command: `echo ready-${w}; sleep 20`, wait_for: { regex: `ready-${w}` } }), 'ok'),
    wait_regex_timed_out: shape(fc.integer({ min: 100, max: 300 }), (ms) => background({ command: 'echo partial; sleep 20', wait_for: { regex: 'never printed', timeout: ms } }), 'TIMEOUT'),
    wait_port_met: shape(fc.constant(null), async () => {
      const port = await freePort();
      return background({ command: `${JSON.stringify(process.execPath)} -e "require('http').createServer().listen(${port}, '127.0.0.1')"`, wait_for: { port } });
    }, 'ok'),
    wait_port_timed_out: shape(fc.integer({ min: 100, max: 300 }), (ms) => background({ command: 'sleep 20', wait_for: { port: 1, timeout: ms } }), 'TIMEOUT'),
    wait_exit_met: shape(fc.integer({ min: 0, max: 3 }), (code) => background({ command: `echo bye; exit ${code}`, wait_for: { exit: true } }), 'ok'),
    wait_exit_timed_out: shape(fc.integer({ min: 100, max: 300 }), (ms) => background({ command: 'sleep 20', wait_for: { exit: true, timeout: ms } }), 'TIMEOUT'),
    wait_aborted: shape(fc.constantFrom<Record<string, unknown>>({ exit: true }, { regex: 'never' }, { port: 1 }), (w) => background({ command: 'sleep 20', wait_for: w }, onStarted), 'ok'),
    wait_without_background: shape(fc.constant(null), () => call('bash', { command: 'true', description: 'x', wait_for: { exit: true } }), 'INVALID_ARGUMENT'),
  },
  run_tests: {
    passes: shape(fc.nat(5), (k) => call('run_tests', { test_command: `echo "Tests  ${k + 1} passed (${k + 1})"` }), 'ok'),
    fails: shape(fc.integer({ min: 1, max: 3 }), (code) => call('run_tests', { test_command: `echo failing; exit ${code}` }), 'ok'),
    timed_out: shape(fc.integer({ min: 100, max: 300 }), (ms) => call('run_tests', { test_command: 'sleep 20', timeout_ms: ms }), 'TIMEOUT'),
  },
  process_list: {
    any: shape(fc.constant(null), () => withProcess('sleep 20', () => call('process_list', {})), 'ok'),
  },
  process_output: {
    any: shape(fc.record({ since: opt(fc.nat(10)), tail: opt(fc.integer({ min: 1, max: 5 })), grep: opt(fc.constantFrom('one', 'x')) }), (v) => withProcess('echo one; echo two; sleep 20', (id) => call('process_output', { id, ...v })), 'ok'),
    unknown: shape(fc.integer({ min: 900, max: 999 }), (k) => call('process_output', { id: `proc-${k}` }), 'PROCESS_NOT_FOUND'),
  },
  process_wait: {
    met: shape(fc.constantFrom<Record<string, unknown>>({ regex: 'go' }, { exit: true }), (w) => withProcess('echo go; sleep 0.2', (id) => call('process_wait', { id, wait_for: w })), 'ok'),
    timed_out: shape(fc.integer({ min: 100, max: 300 }), (ms) => withProcess('sleep 20', (id) => call('process_wait', { id, wait_for: { regex: 'never' }, timeout: ms })), 'TIMEOUT'),
    port_timed_out: shape(fc.integer({ min: 100, max: 300 }), (ms) => withProcess('sleep 20', (id) => call('process_wait', { id, wait_for: { port: 1, timeout: ms } })), 'TIMEOUT'),
    aborted: shape(fc.constantFrom<Record<string, unknown>>({ exit: true }, { regex: 'never' }, { port: 1 }), (w) => withProcess('sleep 20', (id) => call('process_wait', { id, wait_for: w }, atOnce)), 'ok'),
  },
  process_kill: {
    running: shape(fc.constantFrom('SIGTERM', 'SIGINT', 'SIGKILL'), (signal) => withProcess('sleep 20', (id) => call('process_kill', { id, signal })), 'ok'),
    unknown: shape(fc.integer({ min: 900, max: 999 }), (k) => call('process_kill', { id: `proc-${k}` }), 'PROCESS_NOT_FOUND'),
  },
  diagnostics: {
    file: shape(fc.record({ severity: opt(fc.constantFrom('error', 'warning', 'info')) }), (v) => call('diagnostics', { path: 'src/a.ts', ...v }), 'ok'),
    workspace: shape(fc.constant(null), () => call('diagnostics', {}), 'ok'),
    missing: shape(word, (w) => call('diagnostics', { path: `nope/${w}.ts` }), 'FILE_NOT_FOUND'),
  },
};

describe('every tool result matches its own outputSchema', () => {
  it('every tool has shapes here', () => {
    expect(registry.list().map((tool) => tool.name).filter((name) => !SHAPES[name])).toEqual([]);
  });

  for (const [tool, shapes] of Object.entries(SHAPES)) {
    for (const [name, s] of Object.entries(shapes)) {
      it(`${tool}: ${name}`, async () => {
        await fc.assert(
          fc.asyncProperty(s.gen, async (v) => {
            const r = await s.run(v);
            // The shape is what it says it is: its result, not another's, was checked.
            expect(r.ok ? 'ok' : r.error?.code, r.output).toBe(s.outcome);
          }),
          { numRuns: 3 },
        );
        expect(logged.filter((l) => l.event === 'tool.result_invalid' || l.event === 'tool.crashed')).toEqual([]);
      }, 120_000);
    }
  }

  it('every error, with any details, matches the schema of every tool', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...registry.list().map((tool) => tool.name)),
        fc.constantFrom(...ERROR_CODES),
        text,
        fc.dictionary(word, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
        (tool, code, message, details) => {
          const structured = toCallToolResult(failure(new LoupeError(code, message, details)), 0).structuredContent;
          const check = validators.get(tool)!(structured);
          expect(check.valid, check.errorMessage).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});
