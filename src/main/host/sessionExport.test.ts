import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatTranscriptEntry } from '../../shared/contract';
import { harness, type Harness } from '../../../test/support/toolHarness';
import { redact, REDACTED, settingsSecrets } from '../services/settings/secrets';
import { UserSettings } from '../services/settings/userSettings';
import { titleFrom } from '../services/sessions/sessionStore';
import { writeUserSettings } from '../../../test/support/userSettings';
import type { ChatRecord } from './branches';
import { exportSession, importedSession } from './sessionExport';

let h: Harness;
beforeEach(async () => {
  h = await harness({ git: true });
});
afterEach(async () => {
  await h.cleanup();
});

/** A session of one request that wrote a file through the real tool, as the host keeps it. */
async function session(extra: Partial<ChatRecord> = {}, text = 'Wrote notes.md.'): Promise<ChatRecord> {
  const wrote = await h.call('write_file', { path: 'notes.md', content: 'one\ntwo\n', correlation_id: 'req-1' });
  expect(wrote.ok).toBe(true);
  const entries: ChatTranscriptEntry[] = [
    { type: 'user_message', text: 'write the notes\nwith two lines', correlation_id: 'req-1' },
    { type: 'text_delta', text: 'On it.' },
    { type: 'tool_call_started', call_id: 'c1', tool: 'write_file', title: 'Write a file', effect: 'write', summary: 'notes.md', args: { path: 'notes.md' } },
    { type: 'tool_call_finished', call_id: 'c1', tool: 'write_file', ok: true, output: wrote.output, ...(wrote.for_person !== undefined ? { for_person: wrote.for_person } : {}), data: wrote.data, duration_ms: 12 },
    { type: 'tool_call_started', call_id: 'c2', tool: 'bash', title: 'Run a command', effect: 'execute', summary: 'rm -rf /', args: { command: 'rm -rf /' } },
    { type: 'tool_call_finished', call_id: 'c2', tool: 'bash', ok: false, output: 'Error [PERMISSION_DENIED]: The user denied run rm.', for_person: '', error: { code: 'PERMISSION_DENIED', message: 'The user denied run rm.', details: { denied_by: 'user' }, for_person: 'You denied it.' }, duration_ms: 3 },
    { type: 'text_delta', text },
    { type: 'request_finished', status: 'done', text, turns: 2 },
  ];
  return {
    id: 'ses-abc123',
    title: 'Write the notes',
    created_at: '2026-01-01T10:00:00.000Z',
    updated_at: '2026-01-01T10:01:00.000Z',
    requests: [{ correlation_id: 'req-1', prompt: 'write the notes\nwith two lines', started_at: '2026-01-01T10:00:00.000Z', ended_at: '2026-01-01T10:01:00.000Z', status: 'done' }],
    messages: [
      { role: 'user', content: 'write the notes\nwith two lines' },
      { role: 'assistant', content: text },
    ],
    entries,
    usage: { session: { prompt_tokens: 1200, completion_tokens: 80, total_tokens: 1280, calls: 2, estimated_calls: 0, cost_usd: 0.0123 } },
    ...extra,
  };
}

describe('exporting a session', () => {
  it('Markdown: the conversation as the chat shows it, the tool calls in the person’s words, the diff, the usage', async () => {
    const { file_name, text } = await exportSession({ record: await session(), modlog: h.ctx.modlog, workspace: 'ws', secrets: [] }, 'md');
    expect(file_name).toBe('write-the-notes-ses-abc123.md');
    expect(text).toMatch(/^# Write the notes\n/);
    expect(text).toContain('**Usage:** 1,200 tokens in, 80 out over 2 model calls; cost $0.0123.');
    expect(text).toContain('## 1. write the notes');
    expect(text).toContain('**You:**\n\nwrite the notes\nwith two lines');
    expect(text).toContain('**Agent:**\n\nOn it.');
    expect(text).toContain('- **Write a file** `write_file` — `notes.md` — done');
    expect(text).toContain('- **Run a command** `bash` — `rm -rf /` — denied\n  - You denied it.');
    expect(text).not.toContain('Error [PERMISSION_DENIED]');
    expect(text).toMatch(/### Changes \(1\)\n\n- `notes\.md` — create by write_file, mod-[\d-]+, applied\n\n```diff\ndiff --git a\/notes\.md b\/notes\.md\n[^`]*\+one\n\+two\n```/);
  });

  it('JSON: complete and re-importable: the record as kept, its modifications with their diffs', async () => {
    const record = await session();
    const { file_name, text } = await exportSession({ record, modlog: h.ctx.modlog, workspace: 'ws', secrets: [] }, 'json');
    expect(file_name).toBe('write-the-notes-ses-abc123.json');
    const doc = JSON.parse(text);
    expect(doc).toMatchObject({ format: 'loupe-session', version: 1, workspace: 'ws' });
    expect(doc.session).toEqual(record);
    expect(doc.modifications).toHaveLength(1);
    expect(doc.modifications[0]).toMatchObject({ file: 'notes.md', correlation_id: 'req-1', operation: 'create' });
    expect(doc.modifications[0].diff).toContain('+two');
    expect(importedSession(text)).toEqual(record);
    expect(() => importedSession('{"format":"other"}')).toThrow(/not a Loupe session export/);
    expect(() => importedSession('# md')).toThrow(/not JSON/);
  });

  it('never holds a secret from the settings, wherever the session put it, in either format', async () => {
    const base = await session();
    // Keys and tokens as they look: long, with capitals and digits (what JSON's own words never are).
    const secret = fc.string({ minLength: 8, maxLength: 24 }).filter((s) => /[A-Z]/.test(s) && /\d/.test(s) && !REDACTED.includes(s));
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(secret, { minLength: 1, maxLength: 3 }), fc.array(fc.nat(), { minLength: 3, maxLength: 3 }), async (secrets, at) => {
        // The secrets land in the prompt, a tool's output, the agent's words and a key of the record.
        const [a, b, c] = [secrets[at[0]! % secrets.length]!, secrets[at[1]! % secrets.length]!, secrets[at[2]! % secrets.length]!];
        const record: ChatRecord = {
          ...base,
          // Shortened as a title is: the secret may be cut by the "…".
          title: titleFrom(`${'word '.repeat(at[0]! % 14)}about ${a} and more`),
          messages: [...base.messages, { role: 'user', content: `my key is ${a}!` }],
          entries: [...(base.entries ?? []), { type: 'tool_output', call_id: 'c9', text: `${b}\n` }, { type: 'text_delta', text: `"${c}"` }],
          pending_notes: [`${b}${c}`],
        };
        for (const format of ['md', 'json'] as const) {
          const { text, file_name } = await exportSession({ record, modlog: h.ctx.modlog, workspace: 'ws', secrets }, format);
          for (const s of secrets) {
            expect(text).not.toContain(s);
            // Nor most of it: neither its first nor its last eight characters.
            expect(text).not.toContain(s.slice(0, 8));
            expect(text).not.toContain(s.slice(-8));
            expect(file_name).not.toContain(s);
            if (format === 'json') expect(JSON.stringify(JSON.parse(text))).not.toContain(JSON.stringify(s).slice(1, -1));
          }
        }
      }),
      { numRuns: 100 },
    );
  });

  it('finds the secrets where the settings keep them: the key, servers’ env and headers, sign-ins, hooks’ headers', async () => {
    writeUserSettings(`${h.sandbox}/user2`, {
      llm: { api_key: 'sk-file-key-1' },
      mcpServers: { gh: { url: 'https://x/mcp', headers: { Authorization: 'Bearer ${env:GH_TOKEN}', 'X-Plain': 'plain-header-secret' } }, db: { command: 'db', env: { DB_PASSWORD: 'hunter2-pw', MODE: 'on' } } },
      mcp_oauth: { 'https://x/mcp': { tokens: { access_token: 'at-123456', refresh_token: 'rt-654321' } } },
      hooks: { Stop: [{ hooks: [{ type: 'http', url: 'https://h/x', headers: { 'X-Key': '$HOOK_KEY' } }] }] },
    });
    const found = await settingsSecrets({ user: new UserSettings(`${h.sandbox}/user2`), env: { GH_TOKEN: 'ghp_fromenv', HOOK_KEY: 'hook-env-key', OPENAI_API_KEY: 'sk-env-key' }, apiKey: 'sk-keychain-key' });
    for (const s of ['sk-file-key-1', 'Bearer ghp_fromenv', 'ghp_fromenv', 'plain-header-secret', 'hunter2-pw', 'at-123456', 'rt-654321', 'hook-env-key', 'sk-env-key', 'sk-keychain-key']) expect(found).toContain(s);
    // A short value (MODE: on) would blank ordinary words; a bare reference is no secret itself.
    expect(found).not.toContain('on');
    expect(found).toHaveLength(new Set(found).size);
    expect(found).not.toContain('${env:GH_TOKEN}');
    expect(redact({ 'k hunter2-pw': ['x hunter2-pw y', 1, null] }, found)).toEqual({ [`k ${REDACTED}`]: [`x ${REDACTED} y`, 1, null] });
    // Cut where its text was cut: a title shortened with "…", output cut in the middle, a kept tail.
    const key = 'sk-keychain-key';
    expect(redact(`my key is ${key.slice(0, 11)}…`, [key])).toBe(`my key is ${REDACTED}…`);
    expect(redact(`${key.slice(0, 9)}\n… [cut] …\n${key.slice(-9)} end`, [key])).toBe(`${REDACTED}\n… [cut] …\n${REDACTED} end`);
    expect(redact('sk-keychain is a word here', [key])).toBe(`${REDACTED} is a word here`);
  });
});
