import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PermissionAction } from '../../services/permissions/types';
import { fileRef, promptRequest, type PromptContext } from './prompt';

const ROOT = '/home/p/ws';
const ctx = (rules: Record<string, PermissionAction> = {}): PromptContext => ({
  relOf: (abs) => {
    const rel = path.relative(ROOT, abs);
    return rel.startsWith('..') || path.isAbsolute(rel) ? null : rel;
  },
  readAction: async (rel) => rules[rel] ?? 'allow',
});
const url = (rel: string) => `file://${path.join(ROOT, rel)}`;

describe("an ACP prompt's content as a request", () => {
  it('reads file URIs of the workspace with their line fragments, and nothing else', () => {
    expect(fileRef(url('src/a.ts'), ctx())).toEqual({ rel: 'src/a.ts' });
    for (const frag of ['L3-9', 'L3:9', 'L3-L9']) expect(fileRef(`${url('a.ts')}#${frag}`, ctx())).toEqual({ rel: 'a.ts', lines: [3, 9] });
    expect(fileRef(`${url('a.ts')}#L4`, ctx())).toEqual({ rel: 'a.ts', lines: [4, 4] });
    expect(fileRef(`${url('a.ts')}#L9-3`, ctx())).toEqual({ rel: 'a.ts' });
    expect(fileRef('file:///etc/passwd', ctx())).toBeNull();
    expect(fileRef('https://example.com/a.ts', ctx())).toBeNull();
    expect(fileRef('zed:///agent/thread/1', ctx())).toBeNull();
  });

  it('keeps the words, attaches linked files and images, and appends embedded text once the rules allow it', async () => {
    const r = await promptRequest(
      [
        { type: 'text', text: 'Fix' },
        { type: 'resource_link', name: 'a.ts', uri: url('a.ts') },
        { type: 'text', text: ', see' },
        { type: 'resource_link', name: 'docs', uri: 'https://example.com/docs' },
        { type: 'resource', resource: { uri: url('b.ts'), text: 'const b = "```";' } },
        { type: 'image', mimeType: 'image/png', data: 'iVBO', uri: url('shot.png') },
      ],
      ctx(),
    );
    expect(r.text.split('\n')[0]).toBe('Fix @a.ts, see [docs](https://example.com/docs)');
    expect(r.text).toContain('<attached_file path="b.ts" source="editor">\n````\nconst b = "```";\n````\n</attached_file>');
    expect(r.attachments).toEqual([
      { kind: 'file', path: 'a.ts' },
      { kind: 'image', name: 'shot.png', media_type: 'image/png', data: 'iVBO' },
    ]);
  });

  it('refuses what the rules deny or ask about, a file outside, audio and an empty prompt', async () => {
    await expect(promptRequest([{ type: 'resource', resource: { uri: url('.env'), text: 'S=1' } }], ctx({ '.env': 'deny' }))).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    await expect(promptRequest([{ type: 'resource', resource: { uri: url('k.pem'), text: 'x' } }], ctx({ 'k.pem': 'ask' }))).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    await expect(promptRequest([{ type: 'resource', resource: { uri: 'file:///etc/passwd', text: 'root' } }], ctx())).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    await expect(promptRequest([{ type: 'audio', mimeType: 'audio/wav', data: 'AA==' }], ctx())).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(promptRequest([{ type: 'text', text: '   ' }], ctx())).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
