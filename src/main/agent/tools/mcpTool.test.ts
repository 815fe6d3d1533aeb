// What the model reads of an MCP result: text as it is; images, audio, resources and links
// summarised in a line each; structured content when there is no text; long text cut.
import { describe, expect, it } from 'vitest';
import { describeResult, mcpToolName } from './mcpTool';

describe('describeResult', () => {
  it('summarises what is not text, and lists images', () => {
    const r = describeResult({
      content: [
        { type: 'text', text: 'hello' },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        { type: 'audio', data: 'AAAAAAAA', mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'file:///a.txt', text: 'x'.repeat(3000) } },
        { type: 'resource', resource: { uri: 'file:///b.bin', blob: 'AA==', mimeType: 'application/octet-stream' } },
        { type: 'resource_link', uri: 'file:///c.md', name: 'c', mimeType: 'text/markdown' },
      ],
    });
    expect(r.text.split('\n')[0]).toBe('hello');
    expect(r.text).toContain('[image: image/png, 3 bytes]');
    expect(r.text).toContain('[audio: audio/wav, 6 bytes]');
    expect(r.text).toContain(`[resource file:///a.txt]\n${'x'.repeat(2000)}… (3000 characters)`);
    expect(r.text).toContain('[resource file:///b.bin] (binary, application/octet-stream)');
    expect(r.text).toContain('[resource link file:///c.md "c" (text/markdown)]');
    expect(r.images).toEqual([{ mime_type: 'image/png', bytes: 3 }]);
    expect(r.sendable).toEqual([{ mime_type: 'image/png', data: 'AAAA' }]);
  });

  it('offers a model only images every provider takes; the rest stay a summary', () => {
    const r = describeResult({
      content: [
        { type: 'image', data: 'PHN2Zz4=', mimeType: 'image/svg+xml' },
        { type: 'image', data: 'not base64!', mimeType: 'image/png' },
        { type: 'image', data: 'A'.repeat(8 * 1024 * 1024), mimeType: 'image/jpeg' },
        { type: 'image', data: 'R0lGOA==', mimeType: 'image/gif' },
      ],
    });
    expect(r.images.map((i) => i.mime_type)).toEqual(['image/svg+xml', 'image/png', 'image/jpeg', 'image/gif']);
    expect(r.sendable).toEqual([{ mime_type: 'image/gif', data: 'R0lGOA==' }]);
    expect(r.text).toContain('[image: image/jpeg, 6291456 bytes]');
  });

  it('gives structured content when there is no text, and cuts very long text', () => {
    expect(describeResult({ content: [], structuredContent: { a: 1 } }).text).toBe('{\n  "a": 1\n}');
    const long = describeResult({ content: [{ type: 'text', text: 'y'.repeat(150_000) }] }).text;
    expect(long).toMatch(/\[output cut at 100000 of 150000 characters\]$/);
  });
});

describe('mcpToolName', () => {
  it('is mcp__<server>__<tool>, in the characters chat APIs accept, at most 64', () => {
    expect(mcpToolName('github', 'create_issue')).toBe('mcp__github__create_issue');
    expect(mcpToolName('my.server', 'get-thing')).toBe('mcp__my_server__get-thing');
    expect(mcpToolName('s', 'a'.repeat(100))).toHaveLength(64);
  });
});
