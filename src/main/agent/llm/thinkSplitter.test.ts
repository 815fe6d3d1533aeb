import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ThinkSplitter, splitThink } from './thinkSplitter';

/** As the client reads it: content shown before a lone </think> turns out to be reasoning. */
function feed(text: string, cuts: number[], startInThink = false) {
  const s = new ThinkSplitter(startInThink);
  const at = [...new Set(cuts.map((c) => Math.floor(c * text.length)))].sort((a, b) => a - b);
  let content = '';
  let reasoning = '';
  let prev = 0;
  for (const i of [...at, text.length]) {
    const wasLonely = s.lonelyClose;
    const p = s.push(text.slice(prev, i));
    if (!wasLonely && s.lonelyClose) {
      reasoning = content + reasoning;
      content = '';
    }
    content += p.content;
    reasoning += p.reasoning;
    prev = i;
  }
  const end = s.flush();
  return { content: content + end.content, reasoning: reasoning + end.reasoning, lonely: s.lonelyClose };
}

// Text without the tags themselves, as reasoning and answers are.
const plain = fc.string({ maxLength: 60 }).filter((s) => !s.includes('<think>') && !s.includes('</think>') && s.trim() === s);
const cuts = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 8 });

describe('ThinkSplitter', () => {
  it('splits <think>…</think> from the answer however the stream is cut (generated)', () => {
    fc.assert(
      fc.property(plain, plain, cuts, (reasoning, answer, c) => {
        const out = feed(`<think>${reasoning}</think>\n\n${answer}`, c);
        expect(out.reasoning).toBe(reasoning);
        expect(out.content).toBe(answer);
      }),
      { numRuns: 500 },
    );
  });

  it('a lone </think> makes what came before it reasoning (generated)', () => {
    fc.assert(
      fc.property(plain, plain, cuts, (reasoning, answer, c) => {
        const out = feed(`${reasoning}</think>\n${answer}`, c);
        expect(out.lonely).toBe(true);
        expect(out.reasoning).toBe(reasoning);
        expect(out.content).toBe(answer);
      }),
      { numRuns: 300 },
    );
  });

  it('text without tags is all answer, even with a "<" at a cut (generated)', () => {
    fc.assert(
      fc.property(plain, cuts, (answer, c) => {
        expect(feed(answer, c)).toMatchObject({ content: answer, reasoning: '', lonely: false });
      }),
      { numRuns: 300 },
    );
  });

  it('a <think> inside the answer is the answer’s own text', () => {
    expect(splitThink('Use a <think> tag like this.')).toEqual({ content: 'Use a <think> tag like this.', reasoning: '' });
    expect(splitThink('<think>a</think>b </think> c')).toEqual({ content: 'b </think> c', reasoning: 'a' });
  });

  it('started inside a block (the template opened it): everything until </think> is reasoning, an unclosed one is all reasoning', () => {
    expect(splitThink('mull</think>answer', true)).toEqual({ content: 'answer', reasoning: 'mull' });
    expect(splitThink('only thoughts', true)).toEqual({ content: '', reasoning: 'only thoughts' });
  });

  it('a block the template opened, parsed out by the server: the text is the answer', () => {
    const s = new ThinkSplitter(true);
    s.notInThink();
    expect(s.push('The answer.')).toEqual({ content: 'The answer.', reasoning: '' });
    // Once text came, it is too late to change what it was.
    const t = new ThinkSplitter(true);
    expect(t.push('PONDER')).toEqual({ content: '', reasoning: 'PONDER' });
    t.notInThink();
    expect(t.push(' more</think>Answer')).toEqual({ content: 'Answer', reasoning: ' more' });
  });
});
