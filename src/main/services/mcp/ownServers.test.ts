import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { McpServerSchema, type McpServerEntry } from '../config/mcpServers';
import { configView, entryFrom } from './ownServers';

const word = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,11}$/);
// A secret is anything but a bare reference; marked so that finding it in the view means it leaked.
const secret = fc.string({ minLength: 0, maxLength: 30 }).map((t) => `sk-${t}-SECRET`);
const value = fc.oneof(secret, word.map((w) => `\${env:${w}}`), word.map((w) => `Bearer \${env:${w}}`));
const stdio: fc.Arbitrary<McpServerEntry> = fc.record(
  {
    command: fc.stringMatching(/^[a-z][a-z0-9/._-]{0,20}$/),
    args: fc.array(fc.string({ maxLength: 12 }), { maxLength: 4 }),
    env: fc.dictionary(word, value, { maxKeys: 4 }),
    cwd: fc.constantFrom('sub', '/opt/x'),
    network: fc.record({ hosts: fc.array(fc.constantFrom('api.example.com', '127.0.0.1:5432'), { minLength: 1, maxLength: 2 }) }),
    sandbox: fc.constant(false),
    timeout_ms: fc.integer({ min: 1, max: 100_000 }),
  },
  { requiredKeys: ['command'] },
);
const remote: fc.Arbitrary<McpServerEntry> = fc.record(
  {
    type: fc.constant('sse' as const),
    url: fc.constantFrom('https://mcp.example.com/mcp', 'http://127.0.0.1:7000/sse'),
    headers: fc.dictionary(fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,10}$/), value, { maxKeys: 3 }),
    oauth: fc.record({ client_id: fc.constant('abc') }),
    disabled: fc.boolean(),
  },
  { requiredKeys: ['url'] },
);
const clean = (e: McpServerEntry): McpServerEntry => McpServerSchema.parse(JSON.parse(JSON.stringify({ ...e, ...(e.args?.length ? {} : { args: undefined }), ...(e.env && Object.keys(e.env).length ? {} : { env: undefined }), ...(e.headers && Object.keys(e.headers).length ? {} : { headers: undefined }) })));

describe('the settings form of a person’s own MCP server', () => {
  it('never shows a value that may be a secret, and saving the form unchanged gives back the entry as saved', () => {
    fc.assert(
      fc.property(fc.oneof(stdio, remote), (raw) => {
        const entry = clean(raw);
        const view = configView(entry);
        const shown = JSON.stringify(view);
        expect(shown).not.toContain('-SECRET');
        expect(entryFrom('srv', view, entry)).toEqual(entry);
      }),
      { numRuns: 300 },
    );
  });

  it('adds a server from the form, with a value typed in; a kept value needs one saved', () => {
    expect(entryFrom('notes', { transport: 'stdio', command: 'npx', args: ['-y', '@x/notes'], env: [{ name: 'TOKEN', value: 's3cret' }], headers: [], network_hosts: [' api.x.com ', ''] })).toEqual({
      command: 'npx',
      args: ['-y', '@x/notes'],
      env: { TOKEN: 's3cret' },
      network: { hosts: ['api.x.com'] },
    });
    expect(entryFrom('web', { transport: 'http', url: 'https://mcp.example.com/mcp', env: [], headers: [{ name: 'Authorization', value: 'Bearer ${env:T}' }] })).toEqual({ url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${env:T}' } });
    expect(() => entryFrom('notes', { transport: 'stdio', command: 'npx', env: [{ name: 'TOKEN', value: null }], headers: [] })).toThrow(/TOKEN has no saved value to keep/);
  });

  it('refuses what is not a server, saying what to fix', () => {
    const base = { transport: 'stdio' as const, command: 'npx', env: [], headers: [] };
    expect(() => entryFrom('bad name', base)).toThrow(/server name is 1-40/);
    expect(() => entryFrom('x', { ...base, command: '  ' })).toThrow(/Give the command/);
    expect(() => entryFrom('x', { transport: 'http', url: 'ftp://x', env: [], headers: [] })).toThrow(/url: must start with http/);
    expect(() => entryFrom('x', { ...base, env: [{ name: '1A', value: 'v' }] })).toThrow(/not a variable name/);
    expect(() => entryFrom('x', { ...base, env: [{ name: 'A', value: 'v' }, { name: 'A', value: 'w' }] })).toThrow(/given twice/);
    expect(() => entryFrom('x', { ...base, args: 'oops' })).toThrow(/form is not complete: args/);
    expect(() => entryFrom('x', null)).toThrow(/form is not complete/);
    expect(() => entryFrom('x', { ...base, extra: 1 })).toThrow(/form is not complete/);
  });
});
