// The person's own MCP servers as the settings form edits them (docs/architecture.md, "MCP
// servers"): an `mcpServers` entry of their settings shown without its secrets, and a form's
// answer turned back into an entry. Values of `env` and `headers` may be keys or tokens, so a
// client never gets them: it sees that they are set, and an unchanged one is kept as saved. Keys
// the form does not edit (timeouts, sign-in, `disabled`) are kept as they were.
import { z } from 'zod';
import type { McpServerConfigView } from '../../../shared/contract';
import { InvalidArgumentError } from '../../errors';
import { McpServerSchema, SERVER_NAME, transportOf, type McpServerEntry } from '../config/mcpServers';

const Pairs = z.array(z.strictObject({ name: z.string(), value: z.string().nullable() })).max(200);

/** The form's answer as a client sends it (any client: it is checked like any other input). */
const FormSchema = z.strictObject({
  transport: z.enum(['stdio', 'http', 'sse']),
  command: z.string().optional(),
  args: z.array(z.string()).max(500).optional(),
  cwd: z.string().optional(),
  network_hosts: z.array(z.string()).max(200).optional(),
  sandbox: z.boolean().optional(),
  url: z.string().optional(),
  env: Pairs,
  headers: Pairs,
}) satisfies z.ZodType<McpServerConfigView>;

/** A value that only names a variable of Loupe's environment holds no secret itself: it is shown. */
const REFERENCE_ONLY = /^(?:(?:Bearer|Token|Basic) )?\$\{env:[A-Za-z_][A-Za-z0-9_]*\}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const shown = (values: Record<string, string> | undefined) => Object.entries(values ?? {}).map(([name, value]) => ({ name, value: REFERENCE_ONLY.test(value) ? value : null }));

/** What the form shows of a saved entry. */
export function configView(entry: McpServerEntry): McpServerConfigView {
  const transport = transportOf(entry);
  if (transport !== 'stdio') return { transport, url: entry.url!, env: [], headers: shown(entry.headers) };
  return {
    transport,
    command: entry.command!,
    args: entry.args ?? [],
    ...(entry.cwd ? { cwd: entry.cwd } : {}),
    network_hosts: entry.network?.hosts ?? [],
    ...(entry.sandbox === false ? { sandbox: false } : {}),
    env: shown(entry.env),
    headers: [],
  };
}

/** `name: value` pairs from the form; a null value keeps what `saved` has under that name. */
function values(kind: 'env' | 'headers', pairs: { name: string; value: string | null }[] | undefined, saved: Record<string, string> | undefined): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const { name: raw, value } of pairs ?? []) {
    const name = raw.trim();
    if (!name && !value) continue;
    const valid = kind === 'env' ? ENV_NAME : HEADER_NAME;
    if (!valid.test(name)) throw new InvalidArgumentError(kind === 'env' ? `"${name}" is not a variable name (letters, digits and _, not starting with a digit).` : `"${name}" is not a header name.`);
    if (name in out) throw new InvalidArgumentError(`${kind === 'env' ? 'The variable' : 'The header'} ${name} is given twice.`);
    if (value === null) {
      const kept = saved?.[name];
      if (kept === undefined) throw new InvalidArgumentError(`${name} has no saved value to keep; type its value.`);
      out[name] = kept;
    } else out[name] = value;
  }
  return Object.keys(out).length ? out : undefined;
}

/**
 * The entry to save for the form's answer; `saved` is the entry edited (absent for a new server).
 * Throws INVALID_ARGUMENT saying what to fix, and never returns half a server.
 */
export function entryFrom(name: string, input: unknown, saved?: McpServerEntry): McpServerEntry {
  const parsed = FormSchema.safeParse(input);
  if (!parsed.success) throw new InvalidArgumentError(`The server's form is not complete: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'server'}: ${i.message}`).join('; ')}.`);
  const form = parsed.data;
  if (!SERVER_NAME.test(name)) throw new InvalidArgumentError('A server name is 1-40 letters, digits, "_", "." or "-", starting with a letter or digit (it becomes part of its tools\' names).');
  const kept: McpServerEntry = {
    ...(saved?.timeout_ms !== undefined ? { timeout_ms: saved.timeout_ms } : {}),
    ...(saved?.connect_timeout_ms !== undefined ? { connect_timeout_ms: saved.connect_timeout_ms } : {}),
    ...(saved?.disabled !== undefined ? { disabled: saved.disabled } : {}),
  };
  let entry: McpServerEntry;
  if (form.transport === 'stdio') {
    const command = form.command?.trim();
    if (!command) throw new InvalidArgumentError('Give the command that starts the server (for example: npx -y @modelcontextprotocol/server-memory).');
    const hosts = (form.network_hosts ?? []).map((h) => h.trim()).filter(Boolean);
    const env = values('env', form.env, saved?.env);
    entry = {
      command,
      ...(form.args?.length ? { args: form.args } : {}),
      ...(env ? { env } : {}),
      ...(form.cwd?.trim() ? { cwd: form.cwd.trim() } : {}),
      ...(hosts.length ? { network: { hosts } } : {}),
      ...(form.sandbox === false ? { sandbox: false } : {}),
      ...kept,
    };
  } else {
    const url = form.url?.trim();
    if (!url) throw new InvalidArgumentError('Give the server\'s URL (http:// or https://).');
    const headers = values('headers', form.headers, saved?.headers);
    entry = {
      ...(form.transport === 'sse' ? { type: 'sse' as const } : {}),
      url,
      ...(headers ? { headers } : {}),
      // A sign-in configured by hand stays with the same server.
      ...(saved?.oauth && saved.url === url ? { oauth: saved.oauth } : {}),
      ...kept,
    };
  }
  const checked = McpServerSchema.safeParse(entry);
  if (!checked.success) throw new InvalidArgumentError(checked.error.issues.map((i) => `${i.path.length ? `${i.path.join('.')}: ` : ''}${i.message}`).join('; '));
  return checked.data;
}
