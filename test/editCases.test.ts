// The public edit corpus (test/fixtures/edit-cases, format in its README): every case through the real edit_file tool on a
// real temp workspace (a git repo), with the scripted model answering from the case's
// llm_answers. Prints the tally; fails on any wrong edit, wrong refusal or extra model call.
import { existsSync, readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LlmEditCorrector } from '../src/main/agent/edit/corrector';
import { nullLogger } from '../src/main/services/log/logger';
import { createJsonChat } from '../src/main/agent/llm/jsonChat';
import { startScriptedLlm, userPrompt, type ScriptedLlm } from './support/scriptedLlm';
import { harness } from './support/toolHarness';

interface Expectation {
  applied?: string;
  refused?: string[];
  any_of?: Expectation[];
}

interface EditCase {
  id: string;
  category: string;
  file: string;
  content: string | null;
  args: Record<string, unknown>;
  expect: Expectation;
  llm_answers?: Record<string, string>;
  max_llm_calls?: number;
  read_first?: boolean;
  mutate_after_read?: string;
  symlink?: string | { path?: string; link?: string; target: string };
}

const CORPUS = path.resolve(__dirname, 'fixtures/edit-cases/public.json');
const FIELDS = ['corrected_target_snippet', 'corrected_new_string_escaping', 'corrected_new_string'];
const KNOWN_KEYS = new Set(['set', 'id', 'category', 'file', 'content', 'args', 'expect', 'llm_answers', 'max_llm_calls', 'read_first', 'mutate_after_read', 'symlink']);

type Verdict = 'correct' | 'wrong edit' | 'refused, should apply' | 'wrong refusal code' | 'applied, should refuse' | 'over llm budget';

function judgeOutcome(exp: Expectation, applied: string | null, code: string | null): boolean {
  if (exp.any_of) return exp.any_of.some((e) => judgeOutcome(e, applied, code));
  if (exp.applied !== undefined) return code === null && applied === exp.applied;
  if (exp.refused) return code !== null && applied === null && (exp.refused.includes('*') || exp.refused.includes(code));
  return false;
}

const expectsApply = (exp: Expectation): boolean => exp.applied !== undefined || (exp.any_of ?? []).some(expectsApply);

const cases: EditCase[] = (JSON.parse(readFileSync(CORPUS, 'utf8')) as { cases: EditCase[] }).cases;
const tally = new Map<string, Verdict>();
const strategies = new Map<string, string>();

describe('edit-cases corpus', () => {
  let llm: ScriptedLlm;
  let answers: Record<string, string> = {};

  beforeAll(async () => {
    llm = await startScriptedLlm((req) => {
      const prompt = userPrompt(req);
      const field = FIELDS.find((f) => prompt.includes(`{"${f}"`)) ?? 'unknown';
      return { content: JSON.stringify({ [field]: answers[field] ?? '' }) };
    });
  });

  afterAll(async () => {
    await llm?.close();
    const rows = [...tally].map(([id, v]) => `  ${v === 'correct' ? 'ok  ' : 'FAIL'} ${id} (${strategies.get(id)})${v === 'correct' ? '' : ` — ${v}`}`);
    const correct = [...tally.values()].filter((v) => v === 'correct').length;
    console.log(`edit-cases tally: ${correct}/${cases.length} correct, ${[...tally.values()].filter((v) => v === 'wrong edit').length} wrong edits\n${rows.join('\n')}`);
  });

  it('finds the corpus', () => {
    expect(cases.length).toBeGreaterThan(0);
  });

  it.each(cases.map((c) => [c.id, c] as const))('%s', async (_id, c) => {
    expect([...Object.keys(c)].filter((k) => !KNOWN_KEYS.has(k))).toEqual([]);
    answers = c.llm_answers ?? {};
    const logLines: unknown[] = [];
    const logger = { info: (e: string, f?: object) => logLines.push({ e, ...f }), warn: (e: string, f?: object) => logLines.push({ e, ...f }), error: (e: string, f?: object) => logLines.push({ e, ...f }) };
    const corrector = new LlmEditCorrector(createJsonChat({ baseURL: llm.baseURL, apiKey: 'test', model: 'scripted' }), logger);
    const h = await harness({ git: true, corrector, logger: nullLogger });
    try {
      if (c.content !== null) await h.write(c.file, c.content);
      if (c.symlink !== undefined) {
        const spec = typeof c.symlink === 'string' ? { path: c.file, target: c.symlink } : c.symlink;
        await h.link(spec.path ?? spec.link ?? c.file, spec.target);
      }
      if (c.read_first !== false && c.content !== null) expect((await h.call('read_file', { path: c.file })).ok).toBe(true);
      if (c.mutate_after_read !== undefined) await h.write(c.file, c.mutate_after_read);
      const before = c.mutate_after_read ?? c.content;
      const callsBefore = llm.completions.length;
      const result = await h.call('edit_file', { path: c.file, ...c.args });
      const llmCalls = llm.completions.length - callsBefore;

      const abs = path.resolve(h.root, c.file);
      const now = existsSync(abs) ? await readFile(abs, 'utf8') : null;
      const changed = now !== before;
      const code = result.ok ? null : (result.error?.code ?? 'UNKNOWN');
      const escaped = (await readdir(h.sandbox)).filter((n) => n !== 'ws');

      const accepted = judgeOutcome(c.expect, result.ok ? now : null, code) && (result.ok || !changed);
      let verdict: Verdict = 'correct';
      if (escaped.length || (changed && !accepted)) verdict = 'wrong edit';
      else if (!accepted) verdict = result.ok ? 'applied, should refuse' : expectsApply(c.expect) ? 'refused, should apply' : 'wrong refusal code';
      if (verdict === 'correct' && llmCalls > (c.max_llm_calls ?? 0)) verdict = 'over llm budget';
      tally.set(c.id, verdict);
      strategies.set(c.id, result.ok ? String(result.data?.strategy) : `refused ${code}`);
      expect({ verdict, output: result.output.slice(0, 400), llmCalls }).toMatchObject({ verdict: 'correct' });
      if (result.ok) expect(result.data).toMatchObject({ llm_calls: llmCalls, strategy: expect.any(String) });
    } finally {
      await h.cleanup();
    }
  });

  it('tally: every case correct, no wrong edit, none over its model budget', () => {
    const bad = [...tally].filter(([, v]) => v !== 'correct');
    expect(tally.size).toBe(cases.length);
    expect(bad).toEqual([]);
  });
});
