// A session written out for people and programs (docs/architecture.md, "Exporting a session"):
// Markdown to read and share — the conversation as the chat shows it, each tool call in the
// person's words, each request's changes as diffs, the usage — or JSON, complete and
// re-importable: the session's record as Loupe keeps it (the model's messages, the transcript,
// requests, other branches, usage) with its modifications and their diffs. Secrets the person's
// settings hold never appear in either (services/settings/secrets.ts): they are taken out of every
// string before anything is written.
import path from 'node:path';
import type { ChatTranscriptEntry, ModificationView, SessionUsage } from '../../shared/contract';
import { InvalidArgumentError } from '../errors';
import type { ChatMessage } from '../agent/llm/types';
import type { ModificationLog } from '../services/modlog/modificationLog';
import { findModification, sidesOf } from '../services/modlog/rollback';
import { unifiedDiff } from '../services/modlog/unifiedDiff';
import { redact } from '../services/settings/secrets';
import type { SessionRecord } from '../services/sessions/sessionStore';
import type { ChatRecord } from './branches';
import { LOUPE_VERSION } from './version';

export type ExportFormat = 'md' | 'json';
export const EXPORT_FORMAT = 'loupe-session';
export const EXPORT_VERSION = 1;

/** A diff longer than this is cut in the export (the JSON keeps the modification, its ids and hashes). */
const MAX_DIFF_CHARS = 200_000;
/** What a tool card's text shows in Markdown; the JSON keeps it whole. */
const MAX_TOOL_TEXT = 4_000;

export interface ExportInput {
  /** The session as kept, its transcript entries made (ChatSessions.entries). */
  record: ChatRecord;
  modlog: ModificationLog;
  /** The folder's name, for the heading. */
  workspace: string;
  /** Values to take out (settingsSecrets). */
  secrets: readonly string[];
  now?: Date;
}

/** One modification as exported: the log's folded view and its diff (absent for a binary file). */
export interface ExportedModification extends ModificationView {
  diff?: string;
  binary?: true;
  diff_cut?: true;
}

/** The JSON export: `session` is the record as `.loupe/sessions/<id>.json` holds it. */
export interface SessionExport {
  format: typeof EXPORT_FORMAT;
  version: typeof EXPORT_VERSION;
  exported_at: string;
  loupe_version: string;
  workspace: string;
  session: ChatRecord;
  modifications: ExportedModification[];
}

export function checkFormat(v: unknown): ExportFormat {
  if (v === undefined || v === 'md' || v === 'markdown') return 'md';
  if (v === 'json') return 'json';
  throw new InvalidArgumentError(`format must be md or json (got ${JSON.stringify(v)}).`);
}

/** The modifications of the session's requests (every branch's), oldest first, with their diffs. */
async function modificationsOf(record: ChatRecord, modlog: ModificationLog): Promise<ExportedModification[]> {
  const requests = new Set([...record.requests, ...(record.branches ?? []).flatMap((b) => b.requests)].map((r) => r.correlation_id));
  if (!requests.size) return [];
  const fold = await modlog.index().sync();
  const views = [...requests].flatMap((c) => fold.query({ correlation_id: c }).modifications);
  views.sort((a, b) => a.timestamp.localeCompare(b.timestamp) || a.modification_id.localeCompare(b.modification_id));
  const out: ExportedModification[] = [];
  for (const v of views) {
    try {
      const { target } = await findModification(modlog, v.modification_id);
      const { before, after } = await sidesOf(modlog, target.entry);
      if ((before && before.includes(0)) || (after && after.includes(0))) {
        out.push({ ...v, binary: true });
        continue;
      }
      const diff = unifiedDiff(v.file, before?.toString('utf8') ?? null, after?.toString('utf8') ?? null);
      out.push({ ...v, ...(diff.length > MAX_DIFF_CHARS ? { diff: `${diff.slice(0, MAX_DIFF_CHARS)}\n…`, diff_cut: true } : { diff }) });
    } catch {
      // Its blobs are gone (a log copied without .loupe/objects): the row still says what it was.
      out.push({ ...v });
    }
  }
  return out;
}

/** The session as a file: its name and text. Throws INVALID_ARGUMENT for an unknown format. */
export async function exportSession(input: ExportInput, format: ExportFormat): Promise<{ file_name: string; text: string }> {
  const now = input.now ?? new Date();
  const modifications = await modificationsOf(input.record, input.modlog);
  const doc: SessionExport = redact(
    { format: EXPORT_FORMAT, version: EXPORT_VERSION, exported_at: now.toISOString(), loupe_version: LOUPE_VERSION, workspace: input.workspace, session: input.record, modifications },
    input.secrets,
  );
  const file_name = exportFileName(doc.session, format);
  if (format === 'json') return { file_name, text: `${JSON.stringify(doc, null, 2)}\n` };
  // The Markdown's own words are cleaned too, so a secret appears nowhere in it, whatever it spells.
  return { file_name, text: redact(markdown(doc), input.secrets) };
}

/** The name an export is saved under: the title's words and the session's id. */
export function exportFileName(record: Pick<SessionRecord, 'id' | 'title'>, format: ExportFormat): string {
  return `${slug(record.title) || 'session'}-${record.id}.${format}`;
}

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 40)
    .replace(/^-+|-+$/g, '');

/** A fence longer than any run of backticks in `text`, so the text cannot close it. */
function fenced(text: string, lang = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${lang}\n${text.replace(/\n$/, '')}\n${fence}`;
}

const cap = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}\n… (${(s.length - n).toLocaleString('en-US')} more characters)` : s);
const quote = (s: string) =>
  s
    .split('\n')
    .map((l) => `> ${l}`)
    .join('\n');

function usageLine(u: SessionUsage | undefined): string | null {
  if (!u || !u.calls) return null;
  const est = u.estimated_calls ? ` (${u.estimated_calls} estimated)` : '';
  const cost = u.cost_usd !== undefined ? `; cost $${u.cost_usd.toFixed(u.cost_usd < 1 ? 4 : 2)}` : '; cost unknown (no price for the model)';
  return `${u.prompt_tokens.toLocaleString('en-US')} tokens in, ${u.completion_tokens.toLocaleString('en-US')} out over ${u.calls} model call${u.calls === 1 ? '' : 's'}${est}${cost}`;
}

interface CallShown {
  tool: string;
  title: string;
  summary: string;
  status: string;
  text: string;
  error: string | null;
  hooks: string[];
}

/** The conversation as the chat shows it, request by request, with each request's changes. */
function markdown(doc: SessionExport): string {
  const r = doc.session;
  const byRequest = new Map<string, ExportedModification[]>();
  for (const m of doc.modifications) {
    const list = byRequest.get(m.correlation_id ?? '') ?? [];
    list.push(m);
    byRequest.set(m.correlation_id ?? '', list);
  }
  const usage = usageLine((r.usage?.session as SessionUsage | undefined) ?? undefined);
  const out: string[] = [
    `# ${r.title}`,
    '',
    `Session \`${r.id}\` in ${doc.workspace}, started ${r.created_at}, last active ${r.updated_at}; ${r.requests.length} request${r.requests.length === 1 ? '' : 's'}. Exported ${doc.exported_at} by Loupe ${doc.loupe_version}.`,
    ...(usage ? ['', `**Usage:** ${usage}.`] : []),
  ];
  const entries: ChatTranscriptEntry[] = r.entries ?? [];
  const calls = new Map<string, CallShown>();
  let n = 0;
  let current: string | null = null;
  let agentOpen = false;
  const closeRequest = () => {
    if (current === null) return;
    const mods = byRequest.get(current) ?? [];
    if (mods.length) {
      out.push('', `### Changes (${mods.length})`);
      for (const m of mods) {
        const what = `\`${m.file}\` — ${m.operation} by ${m.tool}${m.command ? ` (\`${m.command}\`)` : ''}, ${m.modification_id}, ${m.status.replace('_', ' ')}`;
        out.push('', `- ${what}`);
        if (m.binary) out.push('', '  (binary file: no text diff)');
        else if (m.diff) out.push('', fenced(m.diff, 'diff'));
      }
    }
    current = null;
  };
  const say = (who: string, text: string) => {
    out.push('', `**${who}:**`, '', text.trim());
  };
  for (const e of entries) {
    if (e.type !== 'text_delta') agentOpen = false;
    switch (e.type) {
      case 'user_message': {
        closeRequest();
        n++;
        current = e.correlation_id ?? null;
        const req = r.requests.find((q) => q.correlation_id === e.correlation_id);
        const first = e.text.trim().split('\n')[0] ?? '';
        out.push('', '---', '', `## ${n}. ${first.length > 80 ? `${first.slice(0, 77)}…` : first}`);
        if (req) out.push('', `*Request \`${req.correlation_id}\`, ${req.started_at}${req.status ? `, ${req.status}` : ''}${req.mode === 'plan' ? ', plan mode' : ''}*`);
        say('You', e.text);
        if (e.attachments?.length) out.push('', `Attached: ${e.attachments.map((a) => `\`${a.label}\``).join(', ')}`);
        break;
      }
      case 'text_delta':
        if (agentOpen) out[out.length - 1] += e.text;
        else {
          out.push('', '**Agent:**', '', e.text);
          agentOpen = true;
        }
        break;
      case 'reasoning_delta':
        out.push('', '<details><summary>Reasoning</summary>', '', e.text.trim(), '', '</details>');
        break;
      case 'tool_call_started':
        calls.set(e.call_id, { tool: e.tool, title: e.title, summary: e.summary, status: 'running', text: '', error: null, hooks: [] });
        break;
      case 'tool_output': {
        const c = calls.get(e.call_id);
        if (c) c.text += e.text;
        break;
      }
      case 'hook': {
        const line = `hook ${e.event} ${e.decision} (\`${e.hook}\` from ${e.source})${e.reason ? `: ${e.reason}` : ''}`;
        const c = e.call_id ? calls.get(e.call_id) : undefined;
        if (c) c.hooks.push(line);
        else out.push('', `> ${line}`);
        break;
      }
      case 'tool_call_finished': {
        const c = calls.get(e.call_id) ?? { tool: e.tool, title: e.tool, summary: '', status: '', text: '', error: null, hooks: [] };
        const denied = e.error?.code === 'PERMISSION_DENIED';
        c.status = e.ok ? (typeof e.data?.exit_code === 'number' && e.data.exit_code ? `exit ${e.data.exit_code}` : 'done') : denied ? 'denied' : 'failed';
        c.text = e.for_person ?? e.output;
        // A hook's refusal is in its own line; any other error once, in the person's words.
        c.error = e.error && !(denied && e.error.details?.denied_by === 'hook') ? (e.error.for_person ?? e.error.message) : null;
        out.push('', `- **${c.title}** \`${c.tool}\`${c.summary ? ` — \`${c.summary.replace(/`/g, "'")}\`` : ''} — ${c.status}`);
        for (const h of c.hooks) out.push(`  - ${h}`);
        if (c.error) out.push(`  - ${c.error.split('\n')[0]}`);
        if (c.text.trim()) out.push('', fenced(cap(c.text, MAX_TOOL_TEXT)));
        calls.delete(e.call_id);
        break;
      }
      case 'notice':
        out.push('', quote(e.text));
        break;
      case 'steer':
        say('You (while it worked)', e.text);
        break;
      case 'compacted':
        out.push('', `> Compacted ${e.removed_messages} earlier messages${e.mode === 'summary' ? ' into a summary' : ''}.`);
        break;
      case 'plan':
        out.push('', `**Plan** (saved as \`${e.path}\`):`, '', e.text.trim());
        break;
      case 'error':
        out.push('', `> **${e.code}:** ${e.message}`);
        break;
      default:
        break;
    }
  }
  closeRequest();
  return `${out.join('\n').replace(/\n{3,}/g, '\n\n')}\n`;
}

/** What `loupe import` takes: an export's session, checked before it is saved. */
export function importedSession(text: string): SessionRecord<ChatMessage> & ChatRecord {
  let doc: Partial<SessionExport>;
  try {
    doc = JSON.parse(text) as Partial<SessionExport>;
  } catch {
    throw new InvalidArgumentError('This is not a Loupe session export: it is not JSON (export with --format json).');
  }
  if (doc?.format !== EXPORT_FORMAT) throw new InvalidArgumentError('This is not a Loupe session export (no "format": "loupe-session").');
  if (doc.version !== EXPORT_VERSION) throw new InvalidArgumentError(`This export is version ${String(doc.version)}; this Loupe reads version ${EXPORT_VERSION}.`);
  const s = doc.session;
  if (!s || typeof s !== 'object' || typeof s.id !== 'string' || typeof s.title !== 'string' || !Array.isArray(s.messages) || !Array.isArray(s.requests)) {
    throw new InvalidArgumentError('The export holds no complete session (id, title, messages and requests are needed).');
  }
  return s as SessionRecord<ChatMessage> & ChatRecord;
}

/** The folder's name as an export's heading shows it. */
export const workspaceName = (root: string): string => path.basename(root);
