import { RequestError } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, LoupeError } from '../../errors';
import { PermissionDeniedError } from '../../services/permissions/errors';
import { rpcError, serverDecl } from './agent';

describe("an ACP client's MCP servers", () => {
  it('become the person\'s own server declarations, of each transport', () => {
    expect(serverDecl({ name: 'fs', command: '/usr/bin/node', args: ['srv.js'], env: [{ name: 'TOKEN', value: 't' }] })).toEqual({
      name: 'fs',
      source: 'user',
      file: 'the editor (its session)',
      entry: { command: '/usr/bin/node', args: ['srv.js'], env: { TOKEN: 't' } },
    });
    expect(serverDecl({ type: 'http', name: 'api', url: 'https://example.com/mcp', headers: [{ name: 'Authorization', value: 'Bearer x' }] })).toMatchObject({ entry: { type: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer x' } } });
    expect(serverDecl({ type: 'sse', name: 'old', url: 'http://127.0.0.1:9/sse', headers: [] })).toMatchObject({ entry: { type: 'sse', url: 'http://127.0.0.1:9/sse' } });
  });

  it('refuse a name a tool name cannot hold, and a URL that is not http(s)', () => {
    expect(serverDecl({ name: 'has space', command: 'x', args: [], env: [] })).toMatch(/must be 1-40 letters/);
    expect(serverDecl({ name: 'x'.repeat(41), command: 'x', args: [], env: [] })).toMatch(/must be 1-40 letters/);
    expect(serverDecl({ type: 'http', name: 'f', url: 'file:///etc/passwd', headers: [] })).toMatch(/http:\/\/ or https:\/\//);
  });
});

describe('errors as the client gets them', () => {
  it("keep Loupe's code and message, as invalid params where the request was at fault", () => {
    expect(rpcError(new InvalidArgumentError('Type a message first.'))).toMatchObject({ code: -32602, message: 'Type a message first.', data: { code: 'INVALID_ARGUMENT' } });
    expect(rpcError(new PermissionDeniedError('No.', { denied_by: 'rule' }))).toMatchObject({ code: -32602, data: { code: 'PERMISSION_DENIED', details: { denied_by: 'rule' } } });
    expect(rpcError(new LoupeError('LLM_ERROR', 'The server is down.'))).toMatchObject({ code: -32603, message: 'The server is down.', data: { code: 'LLM_ERROR' } });
    const own = new RequestError(-32002, 'gone');
    expect(rpcError(own)).toBe(own);
  });
});
