// The three findings of other agents' edit tests, through the real edit_file tool on a real
// workspace with a scripted model: the bytes on disk, and the model requests counted at the server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LlmEditCorrector } from '../../src/main/agent/edit/corrector';
import { nullLogger } from '../../src/main/services/log/logger';
import { createJsonChat } from '../../src/main/agent/llm/jsonChat';
import { startScriptedLlm, type ScriptedLlm } from '../support/scriptedLlm';
import { harness } from '../support/toolHarness';

describe('edit_file writes only what it was asked to', () => {
  let llm: ScriptedLlm;

  beforeAll(async () => {
    // Any question gets an answer that would be accepted, so a needless call would show.
    llm = await startScriptedLlm(() => ({ content: JSON.stringify({ corrected_new_string_escaping: 'Second.\\\\\n\\noindent Third.' }) }));
  });
  afterAll(() => llm?.close());

  async function edit(file: string, content: string, args: Record<string, unknown>) {
    const corrector = new LlmEditCorrector(createJsonChat({ baseURL: llm.baseURL, apiKey: 'test', model: 'scripted' }), nullLogger);
    const h = await harness({ git: true, corrector, logger: nullLogger });
    try {
      await h.write(file, content);
      expect((await h.call('read_file', { path: file })).ok).toBe(true);
      const calls = llm.completions.length;
      const result = await h.call('edit_file', { path: file, ...args });
      return { result, text: await h.read(file), calls: llm.completions.length - calls };
    } finally {
      await h.cleanup();
    }
  }

  it('keeps the indentation of the line after an indentation-corrected match', async () => {
    const { result, text } = await edit('app.py', 'def f():\n\tx = 1\n\treturn x\n', { old_str: '    x = 1\n', new_str: '    x = 2\n' });
    expect(result.data).toMatchObject({ strategy: 'indentation' });
    expect(text).toBe('def f():\n\tx = 2\n\treturn x\n');
  });

  it('keeps the LF of an unchanged line among CRLF lines', async () => {
    const { result, text } = await edit('mixed.txt', 'one\r\ntwo\nthree\r\nfour\n', { old_str: 'one\ntwo\nthree', new_str: 'ONE\ntwo\nTHREE' });
    expect(result.ok).toBe(true);
    expect(text).toBe('ONE\r\ntwo\nTHREE\r\nfour\n');
  });

  it('asks the model nothing about a LaTeX line break and command', async () => {
    const { result, text, calls } = await edit('paper.tex', '\\section{Intro}\nFirst.\\\\\nSecond.\n', { old_str: 'Second.', new_str: 'Second.\\\\\n\\noindent Third.' });
    expect(calls).toBe(0);
    expect(result.data).toMatchObject({ llm_calls: 0 });
    expect(text).toBe('\\section{Intro}\nFirst.\\\\\nSecond.\\\\\n\\noindent Third.\n');
  });
});
