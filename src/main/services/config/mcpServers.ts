// The `mcpServers` key (docs/architecture.md, "MCP servers"): the shape people already keep for
// Claude Desktop, Cursor and Claude Code's `.mcp.json`, plus Loupe's own keys for the sandbox,
// timeouts and sign-in. One schema for the user's settings, `.loupe/config.json` and `.mcp.json`.
// A server is taken whole or not at all (its keys only mean something together: half a server
// could start another program), and each problem is reported where it is written.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { InvalidArgumentError } from '../../errors';
import { problemAt, type ConfigProblem, type Path } from './validate';

export const MCP_JSON_REL = '.mcp.json';

/** A name usable in `mcp__<server>__<tool>` and in `server/tool` permission patterns. */
export const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$/;

export const DEFAULT_CALL_TIMEOUT_MS = 60_000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;

const STDIO_ONLY = ['command', 'args', 'env', 'cwd', 'network', 'sandbox'] as const;
const REMOTE_ONLY = ['url', 'headers', 'oauth'] as const;

export const McpServerSchema = z
  .object({
    /** Claude Code's spelling of the transport; without it, `command` means stdio and `url` streamable HTTP. */
    type: z.enum(['stdio', 'http', 'streamable-http', 'sse']).optional(),
    command: z.string().min(1).optional(),
    args: z.array(z.string()).optional(),
    /** Added to the server's environment; values may use `${env:VAR}`. */
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().min(1).optional(),
    url: z.string().regex(/^https?:\/\//i, 'must start with http:// or https://').optional(),
    /** Sent with every request; values may use `${env:VAR}`. */
    headers: z.record(z.string(), z.string()).optional(),
    /** Sign-in (the MCP authorization spec): a pre-registered client, the scope to ask for. */
    oauth: z
      .object({
        client_id: z.string().min(1).optional(),
        client_secret: z.string().min(1).optional(),
        scope: z.string().min(1).optional(),
        /** A Client ID Metadata Document URL, used as the client id where the server supports it. */
        client_metadata_url: z.string().regex(/^https:\/\//i, 'must be an https:// URL').optional(),
      })
      .optional(),
    /** How long one tool call may take (default 60 s). */
    timeout_ms: z.number().int().positive().max(3_600_000).optional(),
    /** How long starting it and its first `initialize` may take (default 30 s). */
    connect_timeout_ms: z.number().int().positive().max(600_000).optional(),
    /** The hosts a sandboxed stdio server may reach (through the sandbox's proxy); none: no network. */
    network: z.object({ hosts: z.array(z.string().min(1)) }).optional(),
    /** `false`: run outside the OS sandbox. Honoured in the user's own settings only. */
    sandbox: z.boolean().optional(),
    disabled: z.boolean().optional(),
  })
  .superRefine((s, ctx) => {
    const remote = s.type === 'http' || s.type === 'streamable-http' || s.type === 'sse';
    if (!s.command && !s.url) return ctx.addIssue({ code: 'custom', message: 'needs "command" (a program started over stdio) or "url" (a remote server)' });
    if (s.command && s.url) return ctx.addIssue({ code: 'custom', message: 'has both "command" and "url"; keep one' });
    if (s.type === 'stdio' && s.url) ctx.addIssue({ code: 'custom', path: ['type'], message: '"stdio" needs "command", not "url"' });
    if (remote && s.command) ctx.addIssue({ code: 'custom', path: ['type'], message: `"${s.type}" needs "url", not "command"` });
    const wrong = s.command ? REMOTE_ONLY.filter((k) => s[k] !== undefined) : STDIO_ONLY.filter((k) => s[k] !== undefined);
    for (const k of wrong) ctx.addIssue({ code: 'custom', path: [k], message: `applies only to ${s.command ? 'remote servers ("url")' : 'stdio servers ("command")'}` });
  });

export type McpServerEntry = z.output<typeof McpServerSchema>;
export const McpServersSchema = z.record(z.string(), McpServerSchema);

/** `.mcp.json` at the workspace root, as Claude Code writes it. */
export const McpJsonSchema = z.object({ mcpServers: McpServersSchema.optional() });

/** Who declared a server: the person (settings, all projects) or the repository (its files). */
export type ServerSource = 'user' | 'project';

export interface McpServerDecl {
  name: string;
  source: ServerSource;
  /** The file it is written in, as the person would open it. */
  file: string;
  entry: McpServerEntry;
}

/**
 * The valid entries of one file's `mcpServers` as declarations. A name that cannot be used in a
 * tool name is a problem; `sandbox` in a repository's file is one too (a clone cannot take its
 * server out of the sandbox), and is dropped while the rest of the server stands.
 */
export function declaredServers(servers: Record<string, McpServerEntry> | undefined, source: ServerSource, file: string, text?: string): { servers: McpServerDecl[]; problems: ConfigProblem[] } {
  const out: McpServerDecl[] = [];
  const problems: ConfigProblem[] = [];
  const at = (...p: Path): Path => ['mcpServers', ...p];
  for (const [name, entry] of Object.entries(servers ?? {})) {
    if (!SERVER_NAME.test(name)) {
      problems.push(problemAt(file, text, at(name), `the name must be 1-40 letters, digits, "_", "." or "-" (it becomes part of the tool names mcp__${name.replace(/[^\w.-]/g, '_')}__…); the server is ignored`));
      continue;
    }
    let kept = entry;
    if (source === 'project' && entry.sandbox !== undefined) {
      problems.push(problemAt(file, text, at(name, 'sandbox'), 'only your own settings can take a server out of the sandbox; ignored'));
      const { sandbox: _drop, ...rest } = entry;
      kept = rest;
    }
    out.push({ name, source, file, entry: kept });
  }
  return { servers: out, problems };
}

export type Transport = 'stdio' | 'http' | 'sse';

export function transportOf(entry: McpServerEntry): Transport {
  if (entry.command) return 'stdio';
  return entry.type === 'sse' ? 'sse' : 'http';
}

const quote = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** The exact command line (as a shell would read it) or URL: what an approval card shows. */
export function commandLine(entry: McpServerEntry): string {
  if (!entry.command) return entry.url ?? '';
  return [entry.command, ...(entry.args ?? [])].map(quote).join(' ');
}

/** Where a stdio server will run on this machine, as the manager decided it: inside the OS sandbox, or outside it and why. */
export type ServerWhere = { sandboxed: true } | { sandboxed: false; why: string };

/**
 * Everything that decides what runs, in one paragraph: the card for starting a repository's
 * server. `where` says what the sandbox will actually do here; without it (not decided) the card
 * claims nothing about the network or the files it can reach.
 */
export function describeServer(decl: McpServerDecl, where?: ServerWhere): string {
  const e = decl.entry;
  const lines = [commandLine(e)];
  if (e.cwd) lines.push(`in ${e.cwd}`);
  for (const [k, v] of Object.entries(e.env ?? {})) lines.push(`env ${k}=${v}`);
  for (const k of Object.keys(e.headers ?? {})) lines.push(`header ${k}`);
  if (e.command && where?.sandboxed) {
    lines.push(`runs inside the OS sandbox: writes only in the workspace; ${e.network?.hosts.length ? `network only to ${e.network.hosts.join(', ')}` : 'no network'}`);
  } else if (e.command && where && !where.sandboxed) {
    lines.push(`runs OUTSIDE the sandbox (${where.why}): it can read and write what you can and reach any network${e.network?.hosts.length ? ` (its "network" list limits nothing there)` : ''}`);
  } else if (e.command && e.network?.hosts.length) lines.push(`network: ${e.network.hosts.join(', ')}`);
  if (e.sandbox === false && !where) lines.push('OUTSIDE the sandbox');
  return lines.join('\n');
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])]));
  return v;
}

/** Names this server's configuration as written (unexpanded): an approval holds until it changes. */
export function serverDigest(decl: McpServerDecl): string {
  const { disabled: _d, timeout_ms: _t, connect_timeout_ms: _c, ...what } = decl.entry;
  return createHash('sha256').update(JSON.stringify(canonical({ name: decl.name, ...what }))).digest('hex');
}

/**
 * `${env:VAR}` replaced from `env`. A variable that is not set is an error that names it, never
 * an empty string sent to a server that would then fail in its own words.
 */
export function expandEnv(values: Record<string, string> | undefined, env: NodeJS.ProcessEnv, where: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(values ?? {})) {
    out[k] = v.replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => {
      const value = env[name];
      if (value === undefined) throw new MissingEnvError(`${where}.${k} uses \${env:${name}}, which is not set in Loupe's environment`);
      return value;
    });
  }
  return out;
}

/** A server's env or headers name a variable Loupe's environment does not have. */
export class MissingEnvError extends InvalidArgumentError {}
