import { describe, expect, it } from 'vitest';
import { EndpointProfile, endpointProfile, knownProfile } from './profile';
import { toWire } from './wire';

const mistral422 = 'The model server answered HTTP 422: body.stream_options.include_usage: Extra inputs are not permitted.';

describe('EndpointProfile', () => {
  it('learns a refused optional field once, from 400/422 with a refusal naming it', () => {
    const p = new EndpointProfile('http://x/v1');
    const sent = new Set(['stream_options', 'reasoning_content'] as const);
    expect(p.learnFromRefusal(500, mistral422, sent)).toBeNull();
    expect(p.learnFromRefusal(422, mistral422, sent)).toBe('stream_options');
    expect(p.sends('stream_options')).toBe(false);
    expect(p.learnFromRefusal(422, mistral422, sent)).toBeNull(); // already dropped: not again
    expect(p.describe()).toBe('no stream_options');
  });

  it('does not drop what the server asks for (DeepSeek: "must be passed back"), nor fields not sent', () => {
    const p = new EndpointProfile('http://x/v1');
    const deepseek = 'The reasoning_content in the thinking mode must be passed back to the API.';
    expect(p.learnFromRefusal(400, deepseek, new Set(['reasoning_content'] as const))).toBeNull();
    expect(p.learnFromRefusal(400, 'Missing `reasoning_content` field in the assistant message at message index 2.', new Set(['reasoning_content'] as const))).toBeNull();
    expect(p.learnFromRefusal(422, 'body.reasoning_content: Extra inputs are not permitted', new Set(['stream_options'] as const))).toBeNull();
  });

  it('tells reasoning_content from reasoning', () => {
    const p = new EndpointProfile('http://x/v1');
    expect(p.learnFromRefusal(400, 'Unrecognized field "reasoning_content" in messages[1]', new Set(['reasoning', 'reasoning_content'] as const))).toBe('reasoning_content');
  });

  it('is kept per base URL, and replays reasoning as received minus what the endpoint refused', () => {
    const p = endpointProfile('http://profile-test:1/v1/');
    expect(knownProfile('http://PROFILE-TEST:1/v1')).toBe(p);
    const wire = toWire(
      [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: null, reasoning_content: 'r', reasoning_details: [{ type: 'reasoning.encrypted', data: 'd' }], tool_calls: [{ id: 'c', type: 'function', function: { name: 'grep', arguments: '{}' }, raw_arguments: '{"bad', extra_content: { google: { thought_signature: 's' } } }] },
      ],
      p,
    );
    expect(wire.messages[1]).toEqual({ role: 'assistant', content: null, reasoning_content: 'r', reasoning_details: [{ type: 'reasoning.encrypted', data: 'd' }], tool_calls: [{ id: 'c', type: 'function', function: { name: 'grep', arguments: '{}' }, extra_content: { google: { thought_signature: 's' } } }] });
    expect(p.describe()).toBe('reasoning replayed');
    p.learnFromRefusal(400, 'reasoning_details: unknown field', wire.sent);
    expect(toWire([{ role: 'assistant', content: 'a', reasoning_details: [{}] }], p).messages[0]).toEqual({ role: 'assistant', content: 'a' });
    expect(p.describe()).toBe('no reasoning_details, reasoning replayed');
  });

  it('sends every tool call’s arguments as a JSON object, whatever a saved session holds', () => {
    const p = new EndpointProfile('http://x/v1');
    const calls = ['{"path": "a"', '', '[1]', '"s"', '{"ok":true}'].map((a, i) => ({ id: `c${i}`, type: 'function' as const, function: { name: 'grep', arguments: a } }));
    const sent = toWire([{ role: 'assistant', content: null, tool_calls: calls }], p).messages[0].tool_calls as { function: { arguments: string } }[];
    expect(sent.map((c) => c.function.arguments)).toEqual(['{}', '{}', '{}', '{}', '{"ok":true}']);
  });
});
