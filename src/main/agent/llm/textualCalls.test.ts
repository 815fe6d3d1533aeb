import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { recogniseTextualCalls } from './textualCalls';

const TOOLS = ['read_file', 'edit_file', 'grep'];
const args = fc.dictionary(fc.constantFrom('path', 'pattern', 'old_str', 'new_str'), fc.string({ maxLength: 40 }), { maxKeys: 3 });

describe('textual tool calls', () => {
  it('reads <tool_call> blocks and fenced JSON for offered tools, whatever the arguments (generated)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...TOOLS), args, fc.constantFrom('tagged', 'fenced', 'bare', 'mistral', 'python_tag', 'function'), (name, a, form) => {
        const obj = JSON.stringify({ name, arguments: a });
        const text = {
          tagged: `Let me look.\n<tool_call>\n${obj}\n</tool_call>`,
          fenced: `Let me look.\n\`\`\`json\n${obj}\n\`\`\``,
          bare: obj,
          mistral: `Let me look.[TOOL_CALLS][${obj}]`,
          python_tag: `Let me look.\n<|python_tag|>${JSON.stringify({ name, parameters: a })}<|eom_id|>`,
          function: `Let me look.\n<function=${name}>${JSON.stringify(a)}</function>`,
        }[form];
        const found = recogniseTextualCalls(text, TOOLS);
        expect(found?.calls.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([[name, a]]);
        expect(found?.rest).toBe(form === 'bare' ? '' : 'Let me look.');
      }),
      { numRuns: 300 },
    );
  });

  it('reads Qwen3-Coder’s <function=…><parameter=…> form, closed or not, inside <tool_call> or bare', () => {
    const closed = 'I will fix it.\n<tool_call>\n<function=edit_file>\n<parameter=path>\ncalc.js\n</parameter>\n<parameter=old_str>\na - b\n</parameter>\n<parameter=new_str>\na + b\n</parameter>\n</function>\n</tool_call>';
    expect(recogniseTextualCalls(closed, TOOLS)).toEqual({ calls: [{ id: 'text_call_0', type: 'function', function: { name: 'edit_file', arguments: '{"path":"calc.js","old_str":"a - b","new_str":"a + b"}' } }], rest: 'I will fix it.' });
    const open = "I'll read it.\n\n<function=read_file>\n<parameter=path> calc.js\n<parameter=limit> 20\n";
    expect(recogniseTextualCalls(open, TOOLS)?.calls.map((c) => JSON.parse(c.function.arguments))).toEqual([{ path: 'calc.js', limit: 20 }]);
  });

  it('leaves alone names not offered, objects that are not calls, and prose', () => {
    expect(recogniseTextualCalls('<tool_call>{"name":"rm_rf","arguments":{}}</tool_call>', TOOLS)).toBeNull();
    expect(recogniseTextualCalls('```json\n{"name":"grep","arguments":{},"note":"x"}\n```', TOOLS)).toBeNull();
    expect(recogniseTextualCalls('```json\n{"path":"a"}\n```', TOOLS)).toBeNull();
    expect(recogniseTextualCalls('Use grep to search.', TOOLS)).toBeNull();
    expect(recogniseTextualCalls('<tool_call>{"name":"grep","arguments":{}}</tool_call>', [])).toBeNull();
  });

  it('reads several calls, and OpenAI-shaped {function:{…}} objects', () => {
    const text = '<tool_call>{"name":"grep","arguments":{"pattern":"a"}}</tool_call>\n<tool_call>{"type":"function","function":{"name":"read_file","arguments":"{\\"path\\":\\"b\\"}"}}</tool_call>';
    expect(recogniseTextualCalls(text, TOOLS)?.calls.map((c) => [c.id, c.function.name, c.function.arguments])).toEqual([
      ['text_call_0', 'grep', '{"pattern":"a"}'],
      ['text_call_1', 'read_file', '{"path":"b"}'],
    ]);
  });
});
