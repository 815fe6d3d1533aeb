// An ACP client on the official SDK (`client()` of @agentclientprotocol/sdk), driving the built
// `loupe acp` over its stdio as an editor would. Every line Loupe writes is also checked against
// the protocol's JSON Schema (the SDK ships it): a frame that is not valid JSON-RPC, a message
// whose params or result do not fit the schema of its method, or a method Loupe should not call
// is a problem the tests assert there are none of. Needs `npm run build` first.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Readable } from 'node:stream';
import {
  client,
  ndJsonStream,
  type ClientCapabilities,
  type ClientConnection,
  type ClientContext,
  type InitializeResponse,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
  type SessionUpdate,
  type WriteTextFileRequest,
} from '@agentclientprotocol/sdk';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import { afterEach } from 'vitest';
import { BIN, type CliFixture } from './cli';
import { writeUserSettings } from './userSettings';

const require = createRequire(import.meta.url);
const SCHEMA = JSON.parse(readFileSync(require.resolve('@agentclientprotocol/sdk/schema/v1/schema.json'), 'utf8')) as Record<string, unknown>;

const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
ajv.addSchema(SCHEMA, 'acp');
const defs = new Map<string, ValidateFunction>();
const schemaOf = (name: string): ValidateFunction => {
  let v = defs.get(name);
  if (!v) {
    v = ajv.getSchema(`acp#/$defs/${name}`)!;
    if (!v) throw new Error(`no $defs/${name} in the ACP schema`);
    defs.set(name, v);
  }
  return v;
};

/** What each method's params (sent by the agent) and result (answered by the agent) must fit. */
const AGENT_SENDS: Record<string, string> = {
  'session/update': 'SessionNotification',
  'session/request_permission': 'RequestPermissionRequest',
  'fs/read_text_file': 'ReadTextFileRequest',
  'fs/write_text_file': 'WriteTextFileRequest',
  '$/cancel_request': 'CancelRequestNotification',
};
const AGENT_ANSWERS: Record<string, string> = {
  initialize: 'InitializeResponse',
  'session/new': 'NewSessionResponse',
  'session/load': 'LoadSessionResponse',
  'session/list': 'ListSessionsResponse',
  'session/resume': 'ResumeSessionResponse',
  'session/close': 'CloseSessionResponse',
  'session/delete': 'DeleteSessionResponse',
  'session/set_mode': 'SetSessionModeResponse',
  'session/set_config_option': 'SetSessionConfigOptionResponse',
  'session/prompt': 'PromptResponse',
};

export interface AcpOptions {
  cwd: string;
  env: Record<string, string | undefined>;
  args?: string[];
  capabilities?: ClientCapabilities;
  /** Send `initialize` first (default); false leaves it to the test. */
  initialize?: boolean;
}

export interface AcpProcess {
  child: ChildProcessWithoutNullStreams;
  /** Loupe's answer to `initialize`. */
  init: InitializeResponse;
  connection: ClientConnection;
  agent: ClientContext;
  /** Every session/update received, in order. */
  notifications: SessionNotification[];
  /** Every raw frame Loupe wrote, parsed. */
  frames: Record<string, unknown>[];
  /** Frames that broke the protocol or its schema (each with why). */
  problems: string[];
  permissions: RequestPermissionRequest[];
  /** Answers each permission request; default: allow once. */
  answer: (req: RequestPermissionRequest) => RequestPermissionResponse | Promise<RequestPermissionResponse>;
  /** The editor's open buffers (client path → text), read by fs/read_text_file before the disk. */
  buffers: Map<string, string>;
  writes: WriteTextFileRequest[];
  stderr(): string;
  updates(sessionId: string): SessionUpdate[];
  /** Writes bytes to Loupe's stdin as they are (malformed frames). */
  raw(text: string): void;
  /** Resolves with the frame the predicate accepts, now or when it comes (30 s at most). */
  frame(match: (f: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  close(): Promise<number | null>;
}

function checkFrame(f: unknown, sent: Map<unknown, string>, problems: string[]): void {
  if (!f || typeof f !== 'object' || Array.isArray(f)) return void problems.push(`not a JSON object: ${JSON.stringify(f)}`);
  const m = f as Record<string, unknown>;
  if (m.jsonrpc !== '2.0') problems.push(`no "jsonrpc": "2.0": ${JSON.stringify(f).slice(0, 200)}`);
  const check = (schema: string, value: unknown, what: string) => {
    const v = schemaOf(schema);
    if (!v(value)) problems.push(`${what} does not fit ${schema}: ${ajv.errorsText(v.errors)} in ${JSON.stringify(value).slice(0, 400)}`);
  };
  if (typeof m.method === 'string') {
    const schema = AGENT_SENDS[m.method];
    if (!schema) return void problems.push(`Loupe sent a method a client does not take: ${m.method}`);
    check(schema, m.params, m.method);
    return;
  }
  if ('id' in m) {
    if ('error' in m) return check('Error', m.error, `the error answering ${String(m.id)}`);
    const method = sent.get(m.id);
    // Answers to requests the SDK client made that the tests did not name (none) are skipped.
    if (method && AGENT_ANSWERS[method]) check(AGENT_ANSWERS[method], m.result, `the answer to ${method}`);
    return;
  }
  problems.push(`neither a request, a notification nor a response: ${JSON.stringify(f).slice(0, 200)}`);
}

/** Splits a byte stream into lines, each handed to `line`; the bytes pass on unchanged. */
function tap(line: (text: string) => void): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  let rest = '';
  return new TransformStream({
    transform(chunk, controller) {
      rest += decoder.decode(chunk, { stream: true });
      let at: number;
      while ((at = rest.indexOf('\n')) !== -1) {
        const l = rest.slice(0, at);
        rest = rest.slice(at + 1);
        if (l.trim()) line(l);
      }
      controller.enqueue(chunk);
    },
  });
}

export async function startAcp(opts: AcpOptions): Promise<AcpProcess> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, ...opts.env })) if (v !== undefined) env[k] = v;
  const child = spawn(process.execPath, [BIN, 'acp', ...(opts.args ?? ['--cwd', opts.cwd])], { cwd: opts.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const frames: Record<string, unknown>[] = [];
  const problems: string[] = [];
  const sent = new Map<unknown, string>();
  const waiters: { match: (f: Record<string, unknown>) => boolean; resolve: (f: Record<string, unknown>) => void }[] = [];
  const onLine = (l: string) => {
    let f: unknown;
    try {
      f = JSON.parse(l);
    } catch {
      return void problems.push(`not JSON on stdout: ${l.slice(0, 200)}`);
    }
    checkFrame(f, sent, problems);
    if (f && typeof f === 'object') {
      frames.push(f as Record<string, unknown>);
      for (const w of [...waiters]) {
        if (w.match(f as Record<string, unknown>)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(f as Record<string, unknown>);
        }
      }
    }
  };
  const input = (Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>).pipeThrough(tap(onLine));
  const outgoing = tap((l) => {
    try {
      const m = JSON.parse(l) as Record<string, unknown>;
      if (typeof m.method === 'string' && 'id' in m) sent.set(m.id, m.method);
    } catch {
      /* a raw test frame */
    }
  });
  // The SDK's frames and the tests' raw bytes reach stdin through one queue, each whole, in order.
  let queue: Promise<void> = Promise.resolve();
  const send = (bytes: Uint8Array | string) => {
    queue = queue.then(
      () =>
        new Promise<void>((resolve) => {
          if (child.stdin.destroyed || !child.stdin.writable) return resolve();
          if (child.stdin.write(bytes)) resolve();
          else child.stdin.once('drain', () => resolve());
        }),
    );
  };
  void (async () => {
    for await (const chunk of outgoing.readable as unknown as AsyncIterable<Uint8Array>) send(chunk);
  })().catch(() => undefined);

  const p = {
    child,
    notifications: [] as SessionNotification[],
    frames,
    problems,
    permissions: [] as RequestPermissionRequest[],
    answer: (() => ({ outcome: { outcome: 'selected', optionId: 'allow_once' } })) as AcpProcess['answer'],
    buffers: new Map<string, string>(),
    writes: [] as WriteTextFileRequest[],
  } as AcpProcess;
  const app = client({ name: 'loupe-acp-test' })
    .onNotification('session/update', ({ params }) => void p.notifications.push(params))
    .onRequest('session/request_permission', async ({ params }) => {
      p.permissions.push(params);
      return p.answer(params);
    })
    .onRequest('fs/read_text_file', ({ params }) => {
      const held = p.buffers.get(params.path);
      return { content: held ?? readFileSync(params.path, 'utf8') };
    })
    .onRequest('fs/write_text_file', ({ params }) => {
      p.writes.push(params);
      p.buffers.set(params.path, params.content);
      return {};
    });
  const connection = app.connect(ndJsonStream(outgoing.writable, input));
  p.connection = connection;
  p.agent = connection.agent;
  p.stderr = () => stderr;
  p.updates = (sessionId) => p.notifications.filter((n) => n.sessionId === sessionId).map((n) => n.update);
  p.raw = (text) => send(text);
  p.frame = (match) => {
    const found = frames.find(match);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const w = { match, resolve };
      waiters.push(w);
      setTimeout(() => {
        if (waiters.includes(w)) reject(new Error(`no such frame within 30 s; stderr:\n${stderr}`));
      }, 30_000).unref();
    });
  };
  p.close = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    connection.close();
    child.stdin.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const code = await exited;
    clearTimeout(timer);
    return code;
  };
  if (opts.initialize !== false) p.init = await p.agent.request('initialize', { protocolVersion: 1, clientCapabilities: opts.capabilities ?? {}, clientInfo: { name: 'loupe-acp-test', version: '1.0.0' } });
  return p;
}

/** The text of every agent_message_chunk in updates, joined. */
export const agentText = (updates: SessionUpdate[]): string =>
  updates.flatMap((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? [u.content.text] : [])).join('');

/** The environment of a `loupe acp` on the scripted model, with its own Loupe home. */
export const acpEnv = (home: string, baseURL: string): Record<string, string | undefined> => ({
  LOUPE_HOME: home,
  LOUPE_KEYCHAIN: 'off',
  LOUPE_MODEL: 'scripted',
  OPENAI_BASE_URL: baseURL,
  OPENAI_API_KEY: 'k',
  LOUPE_LOG: undefined,
});

let folders = 0;

/** A new folder in the fixture's sandbox and a Loupe home beside it holding `settings`. */
export async function acpWorkspace(fx: CliFixture, settings: Record<string, unknown> = {}): Promise<{ ws: string; home: string; env: Record<string, string | undefined> }> {
  const n = ++folders;
  const ws = path.join(fx.sandbox, `ws${n}`);
  const home = path.join(fx.sandbox, `home${n}`);
  await mkdir(ws, { recursive: true });
  writeUserSettings(home, settings);
  return { ws, home, env: acpEnv(home, fx.llm.baseURL) };
}

/** Starts `loupe acp` processes that are closed after each test. */
export function useAcpProcesses(): (opts: AcpOptions) => Promise<AcpProcess> {
  const open: AcpProcess[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((p) => p.close()));
  });
  return async (opts) => {
    const p = await startAcp(opts);
    open.push(p);
    return p;
  };
}
