// `loupe run` against the scripted server speaking like each real OpenAI-compatible server
// (test/support/serverDialects.ts: the quirks and refusals, each cited to its source). Every
// scenario reads and edits a real file: the edit lands exactly, the answer is clean, exit 0 —
// or the run fails fast with the server's own message and nothing half-written.
// Needs `npx electron-vite build` first.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedLlm, type ScriptedLlm, type ScriptedReply, type ServerOptions } from '../support/scriptedLlm';
import { git, tempDir, writeTree } from '../support/tmp';
import { toolMessages } from './agentHarness';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'bin/loupe.mjs');
const BUGGY = 'exports.add = (a, b) => a - b;\n';
const FIXED = 'exports.add = (a, b) => a + b;\n';
const ANSWER = 'Fixed add(): it subtracted.';
/** Every reasoning text carries this word, so a leak into the answer is easy to see. */
const PONDER = 'PONDER';

let sandbox: { dir: string; cleanup: () => Promise<void> };
let n = 0;

beforeAll(async () => {
  if (!existsSync(path.join(ROOT, 'out/main/cli.js'))) throw new Error('loupe is not built: run `npx electron-vite build` before this test.');
  sandbox = await tempDir('loupe-compat-');
});
afterAll(async () => {
  await sandbox?.cleanup();
});

async function repo(): Promise<string> {
  const dir = path.join(sandbox.dir, `repo${++n}`);
  await writeTree(dir, { 'calc.js': BUGGY, 'notes.md': 'add() must add.\n' });
  git(dir, 'init', '-q');
  git(dir, 'add', '.');
  git(dir, 'commit', '-qm', 'init');
  return dir;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  events: { type: string; [k: string]: unknown }[];
  llm: ScriptedLlm;
  dir: string;
  file: string;
}

/** One `loupe run --yes --json` against a fresh scripted server speaking `server`'s dialect. */
async function run(server: ServerOptions, replies: ScriptedReply[], env: Record<string, string> = {}, opts: { dir?: string; args?: string[] } = {}): Promise<Run> {
  const llm = await startScriptedLlm(replies, server);
  const dir = opts.dir ?? (await repo());
  try {
    const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, 'run', '--cwd', dir, '--yes', '--json', ...(opts.args ?? []), 'fix add() in calc.js'], {
        env: { ...process.env, LOUPE_MODEL: 'scripted', OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'k', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      // A bound for a run that is stuck, not a budget: beside a busy machine one run took over 20 s.
      const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
    const events = r.stdout
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => {
        try {
          return JSON.parse(l);
        } catch {
          return { type: 'unparsed', line: l };
        }
      });
    return { ...r, events, llm, dir, file: await readFile(path.join(dir, 'calc.js'), 'utf8') };
  } finally {
    await llm.close();
  }
}

const tc = (name: string, args: unknown) => ({ name, arguments: typeof args === 'string' ? args : JSON.stringify(args) });
const READ = tc('read_file', { path: 'calc.js' });
const EDIT = tc('edit_file', { path: 'calc.js', old_str: 'a - b', new_str: 'a + b' });
/** The common script: read, edit, answer. */
const script = (over: Partial<Record<'read' | 'edit' | 'answer', Partial<ScriptedReply>>> = {}): ScriptedReply[] => [
  { toolCalls: [READ], ...over.read },
  { toolCalls: [EDIT], ...over.edit },
  { content: ANSWER, ...over.answer },
];

const of = (r: Run, type: string) => r.events.filter((e) => e.type === type);
const finished = (r: Run) => of(r, 'request_finished')[0] as unknown as { status: string; text: string } | undefined;
const answerText = (r: Run) => of(r, 'text_delta').map((e) => e.text).join('');

/** The edit landed exactly, the answer is the answer, nothing failed, no reasoning leaked. */
function expectClean(r: Run, opts: { answer?: string } = {}): void {
  expect(of(r, 'error'), r.stdout + r.stderr).toEqual([]);
  expect(r.code).toBe(0);
  expect(r.file).toBe(FIXED);
  expect(finished(r)).toMatchObject({ status: 'done', text: opts.answer ?? ANSWER });
  expect(of(r, 'tool_call_finished').map((e) => [e.tool, e.ok])).toEqual(expect.arrayContaining([['read_file', true], ['edit_file', true]]));
}

/** Failed at once with the server's words; the file untouched. */
function expectFailedFast(r: Run, serverWords: RegExp, requests: number): void {
  expect(r.code).toBe(1);
  const err = of(r, 'error')[0] as unknown as { code: string; message: string } | undefined;
  expect(err?.code).toBe('LLM_ERROR');
  expect(err?.message).toMatch(serverWords);
  expect(err?.message).not.toMatch(/cut off mid-stream/);
  expect(of(r, 'retry')).toEqual([]);
  expect(r.llm.completions).toHaveLength(requests);
  expect(r.file).toBe(BUGGY);
}

async function savedMessages(r: Run): Promise<{ role: string; content: string | null; [k: string]: unknown }[]> {
  const [f] = (await readdir(path.join(r.dir, '.loupe/sessions'))).filter((n) => n.endsWith('.json'));
  return JSON.parse(await readFile(path.join(r.dir, '.loupe/sessions', f), 'utf8')).messages;
}

describe.concurrent('loupe run against real servers’ dialects', () => {
  // ---- DeepSeek ------------------------------------------------------------------------------
  it('deepseek: thinking mode — reasoning_content is replayed on every tool-call turn, shown apart', async () => {
    const r = await run({ server: 'deepseek' }, script({ read: { reasoning: `${PONDER} read it first` }, edit: { reasoning: `${PONDER} swap the sign` }, answer: { reasoning: `${PONDER} done` } }));
    expectClean(r);
    const sent = r.llm.completions[2].body.messages!.filter((m) => m.role === 'assistant') as { reasoning_content?: string }[];
    expect(sent.map((m) => m.reasoning_content)).toEqual([`${PONDER} read it first`, `${PONDER} swap the sign`]);
    expect(of(r, 'reasoning_delta').map((e) => e.text).join('')).toContain(`${PONDER} swap the sign`);
    expect(answerText(r)).not.toContain(PONDER);
  });

  it('deepseek: two parallel calls under one id (repeated on every piece) both run, each answered under its own id', async () => {
    const dup = 'call_00_dS1Dnxavoyj3671yVxnr4217';
    const reads = [{ ...READ, id: dup }, { ...tc('read_file', { path: 'notes.md' }), id: dup }];
    const r = await run({ server: 'deepseek', variant: 'repeat-id' }, script({ read: { reasoning: `${PONDER} both`, toolCalls: reads }, edit: { reasoning: `${PONDER} fix` } }));
    expectClean(r);
    expect(of(r, 'tool_call_finished').filter((e) => e.tool === 'read_file' && e.ok)).toHaveLength(2);
    const body = r.llm.completions[1].body;
    const ids = body.messages!.flatMap((m) => m.tool_calls ?? []).map((c) => c.id);
    expect(ids[0]).toBe(dup);
    expect(new Set(ids).size).toBe(2);
    const told = toolMessages(body);
    expect(Object.keys(told).sort()).toEqual([...ids].sort());
    expect(told[ids[0]]).toMatch(/a - b/);
    expect(told[ids[1]]).toMatch(/add\(\) must add/);
  });

  it('deepseek: a resumed session keeps the reasoning to send back', async () => {
    const r = await run({ server: 'deepseek' }, script({ read: { reasoning: `${PONDER} a` }, edit: { reasoning: `${PONDER} b` } }));
    expectClean(r);
    const saved = await savedMessages(r);
    expect(saved.filter((m) => m.role === 'assistant' && m.tool_calls).every((m) => typeof m.reasoning_content === 'string')).toBe(true);
    expect(saved.some((m) => typeof m.content === 'string' && m.content.includes(PONDER))).toBe(false);
  });

  // ---- Mistral -------------------------------------------------------------------------------
  it('mistral: the 422 on stream_options is learned once, and the run goes on without it', async () => {
    const r = await run({ server: 'mistral' }, script());
    expectClean(r);
    const bodies = r.llm.completions.map((c) => c.body);
    expect(bodies[0].stream_options).toBeDefined(); // the one refused request
    expect(bodies.slice(1).every((b) => b.stream_options === undefined)).toBe(true);
    expect(bodies).toHaveLength(4);
    expect(of(r, 'notice').map((e) => e.text).join(' ')).toMatch(/refused "stream_options"/);
  });

  it('mistral: its 9-character tool call ids go back untouched', async () => {
    const r = await run({ server: 'mistral' }, script());
    expectClean(r);
    const ids = r.llm.completions.at(-1)!.body.messages!.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id));
    expect(ids).toHaveLength(2);
    expect(ids.every((id) => /^[a-zA-Z0-9]{9}$/.test(id))).toBe(true);
  });

  it('mistral (Magistral): thinking sent as typed content parts is shown apart, never as the answer', async () => {
    const r = await run({ server: 'mistral' }, script({ read: { reasoning: `${PONDER} look` }, answer: { reasoning: `${PONDER} done` } }));
    expectClean(r);
    expect(answerText(r)).not.toContain(PONDER);
    expect(of(r, 'reasoning_delta').map((e) => e.text).join('')).toBe(`${PONDER} look${PONDER} done`);
  });

  it('mistral: a refusal that names no optional field fails fast with Mistral’s own words', async () => {
    const r = await run({ server: 'mistral' }, [{ status: 400, errorBody: { object: 'error', message: 'Prompt contains 40000 tokens, too large for model with 32768 maximum context length', type: 'invalid_request_error', param: null, code: null } }]);
    expectFailedFast(r, /HTTP 400: Prompt contains 40000 tokens, too large/, 2);
  });

  // ---- Gemini --------------------------------------------------------------------------------
  it('gemini: tool-call deltas without index are assembled, and thought signatures go back', async () => {
    const r = await run({ server: 'gemini' }, script());
    expectClean(r);
    const calls = r.llm.completions[2].body.messages!.flatMap((m) => (m.tool_calls ?? []) as { extra_content?: { google?: { thought_signature?: string } } }[]);
    expect(calls).toHaveLength(2);
    expect(calls.every((c) => c.extra_content?.google?.thought_signature?.startsWith('sig-'))).toBe(true);
  });

  it('gemini: parallel calls in one turn, all without index', async () => {
    const r = await run({ server: 'gemini' }, script({ read: { toolCalls: [READ, tc('read_file', { path: 'notes.md' })] } }));
    expectClean(r);
    expect(Object.values(toolMessages(r.llm.completions[1].body)).join('\n')).toMatch(/a - b[\s\S]*add\(\) must add/);
  });

  it('gemini: a stream with finish_reason null throughout still delivers the answer', async () => {
    const r = await run({ server: 'gemini' }, script({ answer: { noFinishReason: true } }));
    expectClean(r);
    expect(r.llm.completions).toHaveLength(3);
    expect(of(r, 'retry')).toEqual([]);
  });

  it('gemini: an error body as a JSON list is read, and a 400 is not retried', async () => {
    const r = await run({ server: 'gemini' }, [{ status: 400, errorBody: [{ error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT' } }] }]);
    expectFailedFast(r, /HTTP 400: API key not valid\. Please pass a valid API key/, 1);
  });

  // ---- Ollama --------------------------------------------------------------------------------
  it('ollama: parallel calls all sent at index 0 stay separate calls', async () => {
    const r = await run({ server: 'ollama' }, script({ read: { toolCalls: [READ, tc('grep', { pattern: 'add' })] } }));
    expectClean(r);
    const names = (r.llm.completions[1].body.messages!.find((m) => m.tool_calls)?.tool_calls ?? []).map((c) => c.function.name);
    expect(names).toEqual(['read_file', 'grep']);
  });

  it('ollama (before 0.4.7): tool-call deltas without index are not dropped', async () => {
    const r = await run({ server: 'ollama', variant: 'legacy' }, script());
    expectClean(r);
  });

  it('ollama: a <tool_call> written as text is run like a real call, with a notice', async () => {
    const r = await run({ server: 'ollama' }, script({ edit: { textualToolCalls: 'tagged' } }));
    expectClean(r);
    expect(of(r, 'notice').map((e) => e.text).join(' ')).toMatch(/wrote a tool call as text \(edit_file\)/);
    expect(answerText(r)).not.toContain('<tool_call>');
    // What goes back is a real call and its result, which Ollama accepts.
    expect(r.llm.completions[2].body.messages!.some((m) => m.tool_calls?.some((c) => c.function.name === 'edit_file'))).toBe(true);
  });

  it('ollama (Qwen3-Coder): a <function=…><parameter=…> call written as text runs, and is not printed', async () => {
    const r = await run({ server: 'ollama' }, script({ read: { content: "I'll read it.", textualToolCalls: 'qwen3-xml' }, edit: { textualToolCalls: 'qwen3-xml' } }));
    expectClean(r);
    expect(answerText(r)).not.toMatch(/<function=|<parameter=|<\/tool_call>/);
    expect(of(r, 'notice')).toHaveLength(2);
  });

  it('ollama: arguments cut off at the token limit are answered, and history replays {} (no 400)', async () => {
    const r = await run({ server: 'ollama' }, [
      { toolCalls: [READ] },
      { toolCalls: [tc('edit_file', '{"path": "calc.js", "old_str": "a - b", "new_st')], finishReason: 'length' },
      { toolCalls: [EDIT] },
      { content: ANSWER },
    ]);
    expectClean(r);
    const told = Object.values(toolMessages(r.llm.completions[2].body)).join('\n');
    expect(told).toMatch(/INVALID_ARGUMENT.*not valid JSON/);
    const replayed = r.llm.completions[2].body.messages!.flatMap((m) => m.tool_calls ?? []).map((c) => c.function.arguments);
    expect(replayed).toContain('{}');
    const saved = await savedMessages(r);
    expect(JSON.stringify(saved)).toContain('"raw_arguments":"{\\"path\\": \\"calc.js\\", \\"old_str\\": \\"a - b\\", \\"new_st"');
  });

  // ---- vLLM ----------------------------------------------------------------------------------
  it('vllm without a reasoning parser: <think>…</think> in the content is shown apart, never as the answer', async () => {
    const r = await run({ server: 'vllm', variant: 'no-reasoning-parser' }, script({ read: { reasoning: `${PONDER} look`, thinkInContent: 'tags' }, answer: { reasoning: `${PONDER} wrap up`, thinkInContent: 'tags' } }));
    expectClean(r);
    expect(answerText(r)).not.toContain(PONDER);
    expect(answerText(r)).not.toContain('think>');
    expect(of(r, 'reasoning_delta').map((e) => e.text).join('')).toContain(`${PONDER} wrap up`);
  });

  it('vllm: a malformed call is never replayed verbatim (vLLM would 400 every later request)', async () => {
    const r = await run({ server: 'vllm' }, [
      { toolCalls: [READ], reasoning: `${PONDER} r` },
      { toolCalls: [tc('edit_file', '{"path": "calc.js", "old_str": "a - b" "new_str": "a + b"}')] },
      { toolCalls: [EDIT] },
      { content: ANSWER },
    ]);
    expectClean(r);
    expect(r.llm.completions).toHaveLength(4);
  });

  it('vllm: a session saved with a malformed call (before this fix) resumes', async () => {
    const dir = await repo();
    const id = 'ses-old0malformed';
    const old = {
      id,
      title: 'old',
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
      requests: [{ correlation_id: 'req-20260101-00000000', prompt: 'fix it', started_at: '2026-01-01T00:00:00.000Z', status: 'done' }],
      messages: [
        { role: 'user', content: 'fix it' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_old', type: 'function', function: { name: 'edit_file', arguments: '{"path": "calc.js", "old_str": "a - b", "new_st' } }] },
        { role: 'tool', tool_call_id: 'call_old', content: 'INVALID_ARGUMENT: The arguments for edit_file are not valid JSON.' },
        { role: 'assistant', content: 'It was cut off.' },
      ],
    };
    await writeTree(dir, { [`.loupe/sessions/${id}.json`]: JSON.stringify(old) });
    const r = await run({ server: 'vllm' }, script(), {}, { dir, args: ['--session', id] });
    expectClean(r);
    expect(r.llm.completions[0].body.messages!.flatMap((m) => m.tool_calls ?? []).map((c) => c.function.arguments)).toContain('{}');
  });

  it('vllm: a fenced JSON tool call in the text is recognised for an offered tool only', async () => {
    const r = await run({ server: 'vllm' }, script({ edit: { content: 'Applying the fix:', textualToolCalls: 'fenced' } }));
    expectClean(r);
    expect(of(r, 'notice').length).toBeGreaterThan(0);
  });

  // ---- llama.cpp -----------------------------------------------------------------------------
  it('llamacpp: an `error:` stream line fails fast with the server’s message, not "cut off", nothing written', async () => {
    const msg = 'the request exceeds the available context size. try increasing the context size or enable context shift';
    const r = await run({ server: 'llamacpp' }, [{ toolCalls: [READ] }, { content: '', streamError: { code: 400, message: msg } }]);
    expectFailedFast(r, /the request exceeds the available context size/, 2);
  });

  const closeOnly = script({ read: { reasoning: `${PONDER} first`, thinkInContent: 'close-only' }, edit: { reasoning: `${PONDER} second`, thinkInContent: 'close-only' }, answer: { reasoning: `${PONDER} last`, thinkInContent: 'close-only' } });

  it('llamacpp: a template that opens <think> in the prompt (only </think> arrives) — never streamed as the answer, first turn included', async () => {
    const r = await run({ server: 'llamacpp', variant: 'think-in-prompt' }, closeOnly);
    expect(answerText(r)).toBe(ANSWER);
    expectClean(r);
    // Asked once, before the first answer was read.
    expect(r.llm.requests.filter((q) => q.path === '/apply-template')).toHaveLength(1);
    expect(of(r, 'reasoning_delta').map((e) => e.text).join('')).toMatch(new RegExp(`^${PONDER} first[\\s\\S]*${PONDER} second[\\s\\S]*${PONDER} last`));
    expect(of(r, 'notice')).toEqual([]);
    const saved = await savedMessages(r);
    expect(saved.filter((m) => m.role === 'assistant').some((m) => String(m.content ?? '').includes(PONDER))).toBe(false);
  });

  it('llamacpp: the same template on a server that parses the reasoning out — the answer still streams as the answer', async () => {
    const r = await run({ server: 'llamacpp', variant: 'think-in-prompt' }, script({ read: { reasoning: `${PONDER} r` }, answer: { reasoning: `${PONDER} a` } }));
    expectClean(r);
    expect(answerText(r)).toBe(ANSWER);
    expect(of(r, 'reasoning_delta').map((e) => e.text).join('')).toBe(`${PONDER} r${PONDER} a`);
  });

  it('llamacpp older than /apply-template: learned from the first lone </think>, said so, the answer clean', async () => {
    const r = await run({ server: 'llamacpp', variant: 'before-apply-template' }, closeOnly);
    expectClean(r);
    expect(of(r, 'notice').map((e) => e.text).join(' ')).toMatch(/was the model’s reasoning/);
    const saved = await savedMessages(r);
    expect(saved.filter((m) => m.role === 'assistant').some((m) => String(m.content ?? '').includes(PONDER))).toBe(false);
  });

  it('llamacpp: an answer that arrives only as reasoning is shown', async () => {
    const r = await run({ server: 'llamacpp' }, script({ answer: { content: '', reasoning: ANSWER } }));
    expectClean(r);
    expect(of(r, 'notice').map((e) => e.text).join(' ')).toMatch(/only as reasoning/);
  });

  // ---- LM Studio -----------------------------------------------------------------------------
  it('lmstudio: <think> tags cut across chunks are split out of the answer', async () => {
    const r = await run({ server: 'lmstudio' }, script({ answer: { reasoning: `${PONDER} ${'x'.repeat(40)}`, thinkInContent: 'tags' } }));
    expectClean(r);
    expect(answerText(r)).not.toMatch(/PONDER|<\/?thi/);
  });

  it('lmstudio: reasoning_content (separate reasoning on) is shown apart and sent back', async () => {
    const r = await run({ server: 'lmstudio' }, script({ read: { reasoning: `${PONDER} r` }, answer: { reasoning: `${PONDER} a` } }));
    expectClean(r);
    expect(answerText(r)).not.toContain(PONDER);
    expect(of(r, 'reasoning_delta').map((e) => e.text).join('')).toBe(`${PONDER} r${PONDER} a`);
    expect((r.llm.completions[1].body.messages!.find((m) => m.role === 'assistant') as { reasoning_content?: string }).reasoning_content).toBe(`${PONDER} r`);
  });

  // ---- OpenRouter ----------------------------------------------------------------------------
  it('openrouter (Gemini 3): reasoning_details go back on tool-call turns; comment keep-alives are skipped', async () => {
    const r = await run({ server: 'openrouter', variant: 'gemini-3' }, script({ read: { reasoning: `${PONDER} r` }, edit: { reasoning: `${PONDER} e` } }));
    expectClean(r);
    const sent = r.llm.completions[2].body.messages!.filter((m) => m.role === 'assistant') as { reasoning_details?: { type: string }[] }[];
    expect(sent.every((m) => m.reasoning_details?.some((d) => d.type === 'reasoning.encrypted'))).toBe(true);
    expect(answerText(r)).not.toContain(PONDER);
  });

  it('openrouter: parallel calls at one index under one id are two calls, each answered under its own id', async () => {
    const r = await run({ server: 'openrouter', variant: 'shared-index' }, script({ read: { toolCalls: [READ, tc('read_file', { path: 'notes.md' })] } }));
    expectClean(r);
    const body = r.llm.completions[1].body;
    const calls = body.messages!.flatMap((m) => m.tool_calls ?? []);
    expect(calls.map((c) => c.function.arguments)).toEqual(['{"path":"calc.js"}', '{"path":"notes.md"}']);
    expect(new Set(calls.map((c) => c.id)).size).toBe(2);
    expect(Object.keys(toolMessages(body)).sort()).toEqual(calls.map((c) => c.id).sort());
  });

  it('openrouter: a mid-stream error shows the provider’s own words from metadata.raw', async () => {
    const raw = '{"error":{"code":400,"message":"Request contains an invalid argument: tools[0].parameters","status":"INVALID_ARGUMENT"}}';
    const r = await run({ server: 'openrouter' }, [{ toolCalls: [READ] }, { streamError: { code: 400, message: 'Provider returned error', metadata: { raw, provider_name: 'Google AI Studio' } } }]);
    expectFailedFast(r, /Provider returned error \(Google AI Studio: .*Request contains an invalid argument: tools\[0\]\.parameters/, 2);
  });

  it('openrouter: a stream kept alive by comments but silent times out on content, then the retry answers', async () => {
    // The bound applies to every answer of the run: at 600 ms one that was not stalled ran out
    // too on a loaded CI machine. Only the stalled one (comments for ever) reaches 4 s.
    const r = await run({ server: 'openrouter' }, [{ toolCalls: [READ] }, { stallAfterFrames: 1, keepAliveMs: 50 }, { toolCalls: [EDIT] }, { content: ANSWER }], { LOUPE_LLM_IDLE_TIMEOUT_MS: '4000' });
    expectClean(r);
    expect(of(r, 'retry').map((e) => e.reason).join(' ')).toMatch(/sent no content for 4 s/);
  });

  // ---- LiteLLM -------------------------------------------------------------------------------
  it('litellm (ollama_chat): arguments as a JSON object and calls at index 0 are serialised and kept apart', async () => {
    const r = await run({ server: 'litellm' }, script({ read: { toolCalls: [READ, tc('read_file', { path: 'notes.md' })] } }));
    expectClean(r);
    const args = r.llm.completions[1].body.messages!.flatMap((m) => m.tool_calls ?? []).map((c) => c.function.arguments);
    expect(args).toEqual(['{"path":"calc.js"}', '{"path":"notes.md"}']);
  });

  it('litellm: a tool name repeated on every delta is not concatenated', async () => {
    const r = await run({ server: 'litellm', variant: 'name-every-delta' }, script());
    expectClean(r);
    expect(r.llm.completions[2].body.messages!.flatMap((m) => m.tool_calls ?? []).map((c) => c.function.name)).toEqual(['read_file', 'edit_file']);
  });

  it('litellm: an HTTP 200 whose body is a JSON error fails fast with that error', async () => {
    const r = await run({ server: 'litellm' }, [
      { toolCalls: [READ] },
      { jsonBody: { error: { message: "litellm.ContextWindowExceededError: litellm.BadRequestError: This model's maximum context length is 8192 tokens", type: null, param: null, code: '400' } } },
    ]);
    expectFailedFast(r, /maximum context length is 8192 tokens/, 2);
  });
});

// The meter in `loupe run --json`: each server puts a stream's usage somewhere else (after the
// finish chunk, beside it, on every chunk as a running count, asked or not: reportUsage in
// serverDialects.ts). Every `usage` event carries exactly what the server reported.
// One run at a time: eleven processes at once outlast the timeout on a loaded machine.
describe('usage as each server reports it', { timeout: 60_000 }, () => {
  interface UsageEvent {
    prompt_tokens: number;
    completion_tokens: number;
    total_tokens: number;
    conversation_tokens: number;
    estimated: boolean;
    session: { prompt_tokens: number; completion_tokens: number; total_tokens: number; calls: number; estimated_calls: number };
  }
  const usages = (r: Run) => of(r, 'usage').map((e) => e.usage as UsageEvent);
  // Gemini counts its thoughts in total_tokens only: the total is more than the sum.
  const reported = (kind: string) =>
    [
      [1000, 20],
      [1120, 31],
      [1290, 12],
    ].map(([p, c]) => ({ prompt_tokens: p, completion_tokens: c, total_tokens: p + c + (kind === 'gemini' ? 64 : 0) }));

  const kinds: ServerOptions['server'][] = ['openai', 'deepseek', 'mistral', 'gemini', 'ollama', 'vllm', 'llamacpp', 'lmstudio', 'openrouter', 'litellm'];
  it.each(kinds)('%s: the meter is the server’s own count, and the session adds it up', async (kind) => {
    const [read, edit, answer] = reported(kind!);
    // DeepSeek's thinking mode wants its reasoning back: the turns have some.
    const reasoning = kind === 'deepseek' ? { reasoning: `${PONDER} so` } : {};
    const r = await run({ server: kind }, script({ read: { usage: read, ...reasoning }, edit: { usage: edit, ...reasoning }, answer: { usage: answer } }));
    expectClean(r);
    const seen = usages(r);
    expect(seen.map(({ prompt_tokens, completion_tokens, total_tokens }) => ({ prompt_tokens, completion_tokens, total_tokens }))).toEqual([read, edit, answer]);
    expect(seen.map((u) => [u.conversation_tokens, u.estimated])).toEqual([read, edit, answer].map((u) => [u.total_tokens, false]));
    expect(seen[2].session).toEqual(expect.objectContaining({ prompt_tokens: 3410, completion_tokens: 63, total_tokens: [read, edit, answer].reduce((n, u) => n + u.total_tokens, 0), calls: 3, estimated_calls: 0 }));
    // The last line alone is enough for a script: request_finished carries the meter.
    expect((finished(r) as unknown as { usage: unknown }).usage).toEqual(seen[2]);
  });

  it('a server that reports nothing: every call estimated, and said so', async () => {
    const r = await run({ server: 'ollama', usage: 'omit' }, script());
    expectClean(r);
    const seen = usages(r);
    expect(seen.map((u) => u.estimated)).toEqual([true, true, true]);
    expect(seen[2].session).toMatchObject({ calls: 3, estimated_calls: 3 });
    // The system prompt and the tools alone are thousands of tokens: an estimate, not a zero.
    expect(seen.every((u) => u.conversation_tokens > 1000)).toBe(true);
  });
});
