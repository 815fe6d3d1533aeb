// Conversations kept per workspace in .loupe/sessions/<id>.json, one file each, written
// atomically so a crash leaves the previous version. The messages are opaque here: this
// service stores what the agent hands it and knows nothing of their shape. The folder may
// have come with a clone, so every file here is reached through real folders, never a link.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { InvalidArgumentError } from '../../errors';
import { readInside } from '../files/safeOpen';
import { readdirInside, removeTreeInside, unlinkInside, writeAtomicInside } from '../files/safeWrite';

export interface SessionRequest {
  correlation_id: string;
  prompt: string;
  started_at: string;
  /** When it ended: what the person did after it is told to the model at the next request. */
  ended_at?: string;
  /** The git branch (or detached commit) when it started: a switch since is told to the model. */
  git_head?: string;
  status?: string;
  /** `plan`: a plan-mode request (its answer is the plan). */
  mode?: string;
  /** Where its prompt sits in the messages (kept through compaction), so an edit can fork there. */
  message_index?: number;
}

export interface SessionRecord<M = unknown> {
  id: string;
  title: string;
  created_at: string;
  updated_at: string;
  requests: SessionRequest[];
  messages: M[];
  /** A subagent's session: the session that started it. */
  parent_session_id?: string;
  /** Who does the session's work: absent for Loupe's own loop, else a hosted agent's name (docs/architecture.md, "Hosted agents"). */
  hosted_agent?: string;
  /** That agent's own id for the conversation, so a later run resumes it where the agent keeps sessions. */
  agent_session?: string;
}

export interface SessionSummary {
  id: string;
  title: string;
  created_at: string;
  updated_at: string;
  requests: number;
  parent_session_id?: string;
  agent?: string;
}

const ID_RE = /^ses-[A-Za-z0-9_-]{1,64}$/;
/** A request's correlation id as a file name: nothing that could leave the folder. */
const REQUEST_RE = /^[A-Za-z0-9_-]{1,80}$/;
export const SESSIONS_REL = '.loupe/sessions';
/** A session's plans (plan-mode answers), one Markdown file per request: `<session>/<request>.md`. */
export const PLANS_REL = '.loupe/plans';

export const newSessionId = (): string => `ses-${randomBytes(6).toString('hex')}`;

export class SessionNotFoundError extends InvalidArgumentError {
  constructor(id: string) {
    super(`No session ${id} in this workspace. List the sessions to see which exist, or start a new one.`);
  }
}

function checkId(id: string): string {
  // The id becomes a file name: nothing that could leave the folder.
  if (!ID_RE.test(id)) throw new InvalidArgumentError(`Not a session id: ${JSON.stringify(id)}. Session ids look like ses-1a2b3c4d5e6f.`);
  return id;
}

/** A title from the first request: one line, short. */
export function titleFrom(prompt: string): string {
  const line = prompt.trim().split('\n')[0].replace(/\s+/g, ' ');
  return line.length > 60 ? `${line.slice(0, 57)}…` : line || 'New session';
}

export class SessionStore {
  readonly dir: string;
  /** Writes to one file are serialised so a slow save cannot land after a later one. */
  private readonly chains = new Map<string, Promise<void>>();

  constructor(private readonly root: string) {
    this.dir = path.join(root, SESSIONS_REL);
  }

  private file(id: string): string {
    return path.join(this.dir, `${checkId(id)}.json`);
  }

  create<M>(title = 'New session', id = newSessionId()): SessionRecord<M> {
    const at = new Date().toISOString();
    return { id: checkId(id), title, created_at: at, updated_at: at, requests: [], messages: [] };
  }

  async save<M>(record: SessionRecord<M>): Promise<void> {
    const file = this.file(record.id);
    record.updated_at = new Date().toISOString();
    const snapshot = JSON.parse(JSON.stringify(record)) as SessionRecord<M>;
    const prev = this.chains.get(record.id) ?? Promise.resolve();
    const next = prev.catch(() => undefined).then(() => writeAtomicInside(this.root, file, JSON.stringify(snapshot, null, 2) + '\n', { mode: 0o600, mkdirs: true, dirMode: 0o700 }));
    this.chains.set(record.id, next);
    await next;
  }

  /** Resolves once every save asked for so far is on disk (or failed): for shutdown. */
  async flush(): Promise<void> {
    await Promise.all([...this.chains.values()].map((c) => c.catch(() => undefined)));
  }

  async load<M>(id: string): Promise<SessionRecord<M>> {
    const read = await readInside(this.root, this.file(id));
    if (!read) throw new SessionNotFoundError(id);
    const text = read.buf.toString('utf8');
    let value: SessionRecord<M>;
    try {
      value = JSON.parse(text) as SessionRecord<M>;
    } catch {
      throw new InvalidArgumentError(`Session ${id} is damaged (${SESSIONS_REL}/${id}.json is not JSON). Delete it or start a new session.`);
    }
    if (value?.id !== id || !Array.isArray(value.messages)) throw new InvalidArgumentError(`Session ${id} is damaged (unexpected shape). Delete it or start a new session.`);
    value.requests ??= [];
    return value;
  }

  /** Newest first; damaged files are skipped, never fatal. */
  async list(): Promise<SessionSummary[]> {
    const names = await readdirInside(this.root, this.dir);
    const ids = names.filter((n) => n.endsWith('.json')).map((n) => n.slice(0, -5)).filter((id) => ID_RE.test(id));
    const loaded = await Promise.all(ids.map((id) => this.load(id).catch(() => null)));
    return loaded
      .filter((r): r is SessionRecord => r !== null)
      .map((r) => ({ id: r.id, title: r.title, created_at: r.created_at, updated_at: r.updated_at, requests: r.requests.length, ...(typeof r.parent_session_id === 'string' ? { parent_session_id: r.parent_session_id } : {}), ...(typeof r.hosted_agent === 'string' ? { agent: r.hosted_agent } : {}) }))
      .sort((a, b) => b.updated_at.localeCompare(a.updated_at));
  }

  /** The prompt of each request among `ids` that a saved session holds (damaged files skipped). */
  async prompts(ids: readonly string[]): Promise<Map<string, string>> {
    const want = new Set(ids);
    const out = new Map<string, string>();
    if (!want.size) return out;
    const names = await readdirInside(this.root, this.dir);
    for (const id of names.filter((n) => n.endsWith('.json')).map((n) => n.slice(0, -5)).filter((n) => ID_RE.test(n))) {
      const r = await this.load(id).catch(() => null);
      for (const q of r?.requests ?? []) if (want.has(q.correlation_id) && typeof q.prompt === 'string') out.set(q.correlation_id, q.prompt);
      if (out.size === want.size) break;
    }
    return out;
  }

  async rename(id: string, title: string): Promise<SessionRecord> {
    const clean = title.trim();
    if (!clean) throw new InvalidArgumentError('A session title cannot be empty.');
    const record = await this.load(id);
    record.title = clean.slice(0, 200);
    await this.save(record);
    return record;
  }

  async delete(id: string): Promise<void> {
    const file = this.file(id);
    await (this.chains.get(id) ?? Promise.resolve()).catch(() => undefined);
    if (!(await unlinkInside(this.root, file))) throw new SessionNotFoundError(id);
    this.chains.delete(id);
    await removeTreeInside(this.root, path.join(this.root, PLANS_REL, id)).catch(() => undefined);
  }

  private planFile(sessionId: string, requestId: string): string {
    if (!REQUEST_RE.test(requestId)) throw new InvalidArgumentError(`Not a request id: ${JSON.stringify(requestId)}.`);
    return path.join(this.root, PLANS_REL, checkId(sessionId), `${requestId}.md`);
  }

  /** Keeps a plan as a Markdown artifact of the session; returns its workspace-relative path. */
  async savePlan(sessionId: string, requestId: string, text: string): Promise<string> {
    const file = this.planFile(sessionId, requestId);
    await writeAtomicInside(this.root, file, text.endsWith('\n') ? text : `${text}\n`, { mode: 0o600, mkdirs: true, dirMode: 0o700 });
    return path.relative(this.root, file).split(path.sep).join('/');
  }

  /** A plan saved by savePlan, or null when there is none. */
  async readPlan(sessionId: string, requestId: string): Promise<string | null> {
    const read = await readInside(this.root, this.planFile(sessionId, requestId));
    return read ? read.buf.toString('utf8') : null;
  }
}
