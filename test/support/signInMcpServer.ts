// A remote MCP server that requires sign-in, on 127.0.0.1: the SDK's own authorization server
// pieces (metadata, dynamic registration, PKCE, tokens; its in-memory demo provider consents at
// once, redirecting the browser straight back) in front of a streamable HTTP server with two
// tools: `whoami` for any signed-in client, and `deploy`, which needs more scope (mcp:deploy) than
// the first sign-in asks for, so calling it answers 403 insufficient_scope: a step-up sign-in.
// Real protocol, no stand-in.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DemoInMemoryAuthProvider } from '@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { getOAuthProtectedResourceMetadataUrl, mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export interface SignInMcpServer {
  /** The MCP endpoint, as `mcpServers.<name>.url`. */
  url: string;
  /** Access tokens issued so far. */
  issued(): string[];
  close(): Promise<void>;
}

export async function startSignInMcpServer(): Promise<SignInMcpServer> {
  const app = createMcpExpressApp({ host: '127.0.0.1' });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const base = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  const mcpUrl = new URL('/mcp', base);
  const provider = new DemoInMemoryAuthProvider();
  app.use(mcpAuthRouter({ provider, issuerUrl: base, resourceServerUrl: mcpUrl, scopesSupported: ['mcp:tools'] }));
  const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(mcpUrl);
  const stepUp = requireBearerAuth({ verifier: provider, requiredScopes: ['mcp:tools', 'mcp:deploy'], resourceMetadataUrl });
  const isDeploy = (body: unknown) => (body as { method?: string; params?: { name?: string } } | undefined)?.method === 'tools/call' && (body as { params: { name?: string } }).params.name === 'deploy';
  type Next = (err?: unknown) => void;
  const deployNeedsMore = (req: IncomingMessage & { body?: unknown }, res: ServerResponse, next: Next) => (isDeploy(req.body) ? void stepUp(req as never, res as never, next) : next());
  app.post('/mcp', requireBearerAuth({ verifier: provider, resourceMetadataUrl }), deployNeedsMore, async (req: IncomingMessage & { body?: unknown }, res: ServerResponse) => {
    const mcp = new McpServer({ name: 'signed', version: '1.0.0' });
    mcp.registerTool('whoami', { description: 'Says who is signed in.' }, () => ({ content: [{ type: 'text', text: 'signed in' }] }));
    mcp.registerTool('deploy', { description: 'Deploys; needs the mcp:deploy scope.' }, () => ({ content: [{ type: 'text', text: 'deployed' }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close().then(() => mcp.close()));
    await mcp.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  app.all('/mcp', (_req: IncomingMessage, res: ServerResponse) => void res.writeHead(405).end());
  return {
    url: mcpUrl.href,
    issued: () => [...(provider as unknown as { tokens: Map<string, unknown> }).tokens.keys()],
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
