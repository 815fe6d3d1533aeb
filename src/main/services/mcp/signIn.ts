// Sign-in to a remote MCP server that requires it (the MCP authorization spec), as the SDK's
// transport drives it: metadata discovery, dynamic or pre-registered clients, PKCE. Loupe's part
// (docs/architecture.md, "MCP servers"): a redirect page on 127.0.0.1 for the code, the page to
// open given to whoever shows it (the settings, the tool call's card, `loupe run`'s stderr) for
// every sign-in, a step-up for more scope included, and the client and tokens kept where the API
// key is (signInStore.ts), never in project files. While a sign-in waits for the person, the
// redirect page keeps the process alive: `loupe run` has nothing else to wait on then.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { McpServerDecl } from '../config/mcpServers';

/** Where a server's sign-in is kept (signInStore.ts: the keychain, else the person's settings). */
export interface SignInStore {
  mcpSignIn(url: string): Promise<{ client?: Record<string, unknown>; tokens?: Record<string, unknown> }>;
  saveMcpSignIn(url: string, patch: { client?: Record<string, unknown>; tokens?: Record<string, unknown> }): Promise<void>;
}

export interface SignInOptions {
  store: SignInStore;
  /** The page to open for consent: told once per sign-in. */
  show(url: string): void;
}

export class ServerSignIn implements OAuthClientProvider {
  private server: http.Server | null = null;
  private port = 0;
  private verifier = '';
  /** The sign-in that waits for the person's code, while one does. */
  private waiting: { resolve(code: string): void; reject(err: Error): void } | null = null;
  /** The code of the latest sign-in: pending while the person has not come back, then kept. */
  private code: Promise<string> | null = null;

  constructor(
    private readonly decl: McpServerDecl,
    private readonly opts: SignInOptions,
  ) {}

  private get key(): string {
    return this.decl.entry.url!;
  }

  /** Opens the redirect page (once); call before connecting. */
  async listen(): Promise<void> {
    if (this.server) return;
    const server = http.createServer((req, res) => {
      const u = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (u.pathname !== '/callback') return void res.writeHead(404).end();
      const code = u.searchParams.get('code');
      const error = u.searchParams.get('error');
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(code ? 'Signed in. You can close this page and return to Loupe.' : `Sign-in failed: ${error ?? 'no code'}`);
      this.settle(code ? { code } : { error: new Error(`the sign-in was refused: ${error ?? 'no code came back'}`) });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    server.unref();
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
  }

  close(): void {
    this.settle({ error: new Error('the server was stopped') });
    this.server?.close();
    this.server = null;
  }

  /** Ends the wait for the person: the process need not stay open for this page any more. */
  private settle(outcome: { code: string } | { error: Error }): void {
    const waiting = this.waiting;
    if (!waiting) return;
    this.waiting = null;
    this.server?.unref();
    if ('code' in outcome) waiting.resolve(outcome.code);
    else waiting.reject(outcome.error);
  }

  get redirectUrl(): string {
    return `http://127.0.0.1:${this.port}/callback`;
  }

  get clientMetadataUrl(): string | undefined {
    return this.decl.entry.oauth?.client_metadata_url;
  }

  get clientMetadata(): OAuthClientMetadata {
    const o = this.decl.entry.oauth;
    return {
      client_name: 'Loupe',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: o?.client_secret ? 'client_secret_post' : 'none',
      ...(o?.scope ? { scope: o.scope } : {}),
    };
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const o = this.decl.entry.oauth;
    if (o?.client_id) return { client_id: o.client_id, ...(o.client_secret ? { client_secret: o.client_secret } : {}) };
    return (await this.opts.store.mcpSignIn(this.key)).client as OAuthClientInformationMixed | undefined;
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    await this.opts.store.saveMcpSignIn(this.key, { client: client as unknown as Record<string, unknown> });
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    return (await this.opts.store.mcpSignIn(this.key)).tokens as OAuthTokens | undefined;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.opts.store.saveMcpSignIn(this.key, { tokens: tokens as unknown as Record<string, unknown> });
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }

  /**
   * Shows the page to open. A sign-in already waiting goes on waiting for this page's code (the
   * SDK keeps only the latest verifier); waiting for the person holds the process open, an idle
   * redirect page does not.
   */
  async redirectToAuthorization(url: URL): Promise<void> {
    if (!this.waiting) {
      this.code = new Promise<string>((resolve, reject) => (this.waiting = { resolve, reject }));
      this.code.catch(() => undefined);
      this.server?.ref();
    }
    this.opts.show(url.href);
  }

  /** The code the redirect page received; set once `redirectToAuthorization` was called. */
  received(): Promise<string> {
    return this.code ?? Promise.reject(new Error('no sign-in was started'));
  }
}
