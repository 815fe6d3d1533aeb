// The host contract: every request the renderer may make and every event the host may push.
// Both transports (Electron IPC, WebSocket) and the renderer are typed from these two maps,
// so a channel added here is added everywhere at once.

import type { ErrorCode } from './errors';

export interface WorkspaceInfo {
  /** Absolute, realpath'd root of the open folder. */
  root: string;
  /** Folder name shown in the UI. */
  name: string;
  isGitRepo: boolean;
  /** What the person should know about this folder, e.g. that it cannot be watched for changes. */
  notices?: string[];
  /** git status hit its time bound here; the badges are the last good ones (see `tree.gitSlow`). */
  git_slow?: boolean;
  /** The background file index as last reported, for clients that connect after it moved. */
  index_progress?: { files: number; done: boolean };
}

export type GitBadge = 'M' | 'A' | 'D' | 'R' | 'U' | '?' | '!' | 'C';

export interface TreeEntry {
  /** Workspace-relative path with forward slashes. */
  path: string;
  name: string;
  kind: 'file' | 'dir';
}

export interface TreeListing {
  dir: string;
  entries: TreeEntry[];
}

export interface FileContent {
  path: string;
  /** Present unless the file is binary or too large to show. */
  content?: string;
  size: number;
  binary: boolean;
  tooLarge: boolean;
  language: string;
}

export interface PathCompletion {
  /** Absolute directory paths that complete the typed prefix. */
  candidates: string[];
}

export interface TerminalInfo {
  id: string;
  shell: string;
  title: string;
  pid: number;
}

export type ModificationStatus = 'applied' | 'approved' | 'rolled_back';

/** One modification as the timeline and `modification_log` show it: the log folded. */
export interface ModificationView {
  modification_id: string;
  timestamp: string;
  session_id: string;
  correlation_id?: string;
  tool: string;
  operation: string;
  file: string;
  lines_affected?: [number, number];
  lines_changed?: number;
  reason?: string;
  status: ModificationStatus;
  /** Approved and already in HEAD (committed from the timeline or by hand): nothing left to commit. */
  committed?: boolean;
  /** Set on a rollback entry: the modification it reversed. */
  rolls_back?: string;
  /** Set on a rolled-back modification: the rollback that reversed it. */
  rolled_back_by?: string;
  /**
   * Hunks (0-based, in the order of this modification's diff) that a live hunk rollback
   * currently reverts, ascending; absent when none. Rolling back that rollback clears its hunk.
   */
  reverted_hunks?: number[];
  /** With reverted_hunks, in the same order: the hunk rollback reverting each (roll it back to restore the hunk). */
  reverted_hunks_by?: string[];
  /** With reverted_hunks: how many hunks the diff has, when the log recorded it. */
  hunk_count?: number;
  git_staged: boolean;
  test_results?: { passed: number; failed: number; skipped?: number; duration_ms: number; status?: string } | null;
  /** The group this belongs to (rolled back as one by naming it): a command's writes, an undo, a redo. */
  group_id?: string;
  group_kind?: 'command' | 'undo' | 'redo' | 'rollback';
  /** A command's change: the command line that made it. */
  command?: string;
  /** A command's change: ignored entries that changed too (not recorded). */
  ignored_changed?: number;
  renamed_from?: string;
  renamed_to?: string;
  /** An undo's lines: the request the undo started from. */
  undo_of?: string;
}

/** One file of an undo's preview: what it holds now and what the undo leaves, or why it cannot. */
export interface UndoPreviewFile {
  file: string;
  language: string;
  /** Text of both sides (null: absent); both omitted when binary or too large to show. */
  before?: string | null;
  after?: string | null;
  binary: boolean;
  /** The modifications reversed in this file, newest first. */
  modifications: string[];
  added: number;
  removed: number;
  /** The undo would overwrite changes made since: by later modifications (blocking) or outside Loupe. */
  conflict?: { why: string; blocking: string[]; outside: boolean };
}

export interface UndoPreviewView {
  session_id: string;
  correlation_id: string;
  /** The requests the undo covers, this one first. */
  requests: string[];
  /** Modifications it reverses. */
  modifications: number;
  files: UndoPreviewFile[];
  /** Names the state the preview was made on: applying refuses when anything changed since. */
  digest: string;
}

export interface UndoResultView {
  /** The undo's group: rolling it back (modlog.rollback, code_rollback) redoes it. */
  group_id: string;
  files: string[];
  rolled_back: number;
  skipped: { file: string; why: string }[];
}

export interface ModificationQuery {
  correlation_id?: string;
  file?: string;
  status?: ModificationStatus;
  /** Newest first; default 10,000. */
  limit?: number;
}

/** Two versions of one file for the diff view; null means "did not exist". */
export interface DiffSides {
  file: string;
  language: string;
  before: string | null;
  after: string | null;
  /** What the two sides are, for the header: e.g. "before → after mod-…", "HEAD → working tree". */
  label: string;
  /** A side holds binary bytes: the sides are then null and `sizes` says how many bytes each had. */
  binary?: boolean;
  sizes?: [number | null, number | null];
}


/** read: changes nothing; write: changes workspace files; execute: runs a process. */
export type ToolEffect = 'read' | 'write' | 'execute';

/** The forms of standing instructions the agent reads (docs/architecture.md, "What the agent is told"). */
export type InstructionKind = 'AGENTS.md' | 'CLAUDE.md' | 'cursor-rule' | '.cursorrules' | 'copilot-instructions' | 'personal';

/** One instruction file as the agent was given it. */
export interface InstructionFileView {
  /** Workspace-relative; the person's own file (kind `personal`): its absolute path. */
  path: string;
  kind: InstructionKind;
  /** When it applies, in words: "always", "for work in packages/api", "for files matching *.ts", "on request: …". */
  applies: string;
  /** Characters of it in the prompt: fewer than total_chars when it was cut to fit the budget. */
  chars: number;
  total_chars: number;
}

/** An instruction file that was not read (a link out of the folder, a FIFO, a read rule), and why. */
export interface SkippedInstructionView {
  path: string;
  reason: string;
}

/** The system prompt as sent to the model, and the instruction files in it. */
export interface SystemPromptView {
  text: string;
  files: InstructionFileView[];
  skipped: SkippedInstructionView[];
}

/** One event of the agent loop (src/main/agent/loop emits exactly these), as the chat pane receives it. */
export type ChatEventBody =
  | { type: 'request_started'; session_id: string; prompt: string }
  /** What the model is told: at a session's first turn, and again only when it changes (an instruction file attached or edited). */
  | { type: 'system_prompt'; text: string; files: InstructionFileView[]; skipped: SkippedInstructionView[] }
  | { type: 'turn_started'; turn: number }
  | { type: 'text_delta'; text: string }
  /** The model's reasoning, shown apart (collapsed), never as the answer. */
  | { type: 'reasoning_delta'; text: string }
  /** How the model's answer was read or asked for: a workaround the person should know about. */
  | { type: 'notice'; text: string }
  /** The model began a tool call; its arguments stream as tool_call_args. */
  | { type: 'tool_call_streaming'; call_id: string; tool: string; title: string; effect: ToolEffect }
  | { type: 'tool_call_args'; call_id: string; delta: string }
  | { type: 'turn_completed'; turn: number; finish_reason: string; tool_calls: number }
  /** `summary`: the tool's one line for these arguments (the path, the command, the URL). */
  | { type: 'tool_call_started'; call_id: string; tool: string; title: string; effect: ToolEffect; summary: string; args: unknown }
  /** Live output of a running tool (bash). */
  | { type: 'tool_output'; call_id: string; text: string }
  | { type: 'tool_call_finished'; call_id: string; tool: string; ok: boolean; output: string; data?: Record<string, unknown>; error?: WireError; duration_ms: number }
  | { type: 'usage'; usage: TokenUsage }
  | { type: 'retry'; attempt: number; delay_ms: number; reason: string }
  | { type: 'compacted'; mode: 'summary' | 'dropped'; removed_messages: number; tokens_before: number; tokens_after: number }
  | { type: 'error'; code: ErrorCode; message: string }
  | { type: 'request_finished'; status: 'done' | 'error' | 'aborted' | 'turn_limit'; text: string; turns: number };

export type ChatEvent = ChatEventBody & { correlation_id: string; t: number };

export interface TokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface ChatSessionSummary {
  id: string;
  title: string;
  created_at: string;
  updated_at: string;
  requests: number;
  /** A request of this session is running now. */
  running?: boolean;
}

/**
 * One step of a conversation as the chat folds it: the loop's events, and the person's message
 * (which the loop does not echo). The live stream and a reopened session are folded by the same
 * function, so a reload shows exactly what was shown live.
 */
export type ChatTranscriptEntry = ChatEventBody | { type: 'user_message'; text: string; correlation_id?: string };

export interface ChatSessionView {
  session: ChatSessionSummary;
  /** The conversation so far, in order: fold it as the live events are folded. */
  entries: ChatTranscriptEntry[];
  /** The correlation id of the request running now, if any. */
  running_correlation_id?: string;
  /** Requests an undo started from that is still in effect (its group redoes it). */
  undone?: { correlation_id: string; group_id: string }[];
}

/** `review`: edits are written, then reviewed; `ask`: each edit waits for approval first. */
export type EditsModeName = 'review' | 'ask';

export type PermissionKindName = 'read' | 'edit' | 'bash' | 'webfetch' | 'external_directory' | 'test' | 'network';

/** A question from the permission engine waiting for the person. */
export interface ApprovalRequestView {
  id: string;
  kind: PermissionKindName;
  tool: string;
  summary: string;
  reason: string;
  /** The rule that made it ask, as text; null: no rule (the built-in default). */
  rule: string | null;
  /** What "allow always" would add to .loupe/config.json. */
  always: { kind: PermissionKindName; pattern: string; action: 'allow' | 'ask' | 'deny'; sandbox?: boolean; hosts?: string[] }[];
  /** Commands: true runs inside the OS sandbox, false outside it (the card says so); absent: no sandbox applies. */
  sandboxed?: boolean;
  /** For edits: the proposed change as a unified diff. */
  diff?: string;
  /** For edits: both sides whole, for a diff editor (null: the file does not exist on that side). */
  edit?: { path: string; before: string | null; after: string | null; language: string };
  /** The tool call that asked (the chat card with this id waits on it); absent outside a chat. */
  call_id?: string;
  /** The request that call belongs to. */
  correlation_id?: string;
  /** The folder's .loupe/config.json has this allow rule, which applies once the folder is trusted. */
  trust_would_allow?: string;
  createdAt: string;
}

/**
 * Whether the open folder's `.loupe/config.json` may grant anything: it arrives with a clone, so
 * its allow rules and test commands apply only once the person trusts these exact bytes.
 */
export interface TrustView {
  root: string;
  /** sha256 of the config's bytes; null when the folder has none. */
  digest: string | null;
  trusted: boolean;
  /** The config grants something, so trusting it or not makes a difference. */
  needed: boolean;
  /** The person declined to trust this content while this host runs. */
  declined: boolean;
  /** What trusting it would turn on. */
  allow: { kind: PermissionKindName; pattern: string }[];
  tests: { language: string; command: string }[];
}

export interface LlmSettingsView {
  base_url: string;
  model: string;
  context_tokens?: number;
  /** The key itself never leaves the host. */
  has_api_key: boolean;
  /** Where the key in use lives (the OS keychain, the settings file, the environment). */
  api_key_where?: string;
  /** Why a saved key could not be read, when that happened. */
  api_key_problem?: string;
  /** Where the values come from: the settings file, the environment, or nowhere yet. */
  source: 'settings' | 'env' | 'none';
  configured: boolean;
  /** Local model servers that answered on their usual ports. */
  detected: { name: string; base_url: string; models: string[] }[];
  /** What was learned of the configured endpoint while it was used ("no stream_options, reasoning replayed"). */
  endpoint_profile?: string;
  /** The user's log file (tool crashes, config problems), when the host writes one. */
  log_file?: string;
}

/** Unsaved fields a settings dialog may probe with (blank: the saved value). */
export interface LlmProbe {
  base_url?: string;
  api_key?: string;
  model?: string;
}

/** Whether the agent's commands run inside an OS sandbox here, and if not, why and how to get one. */
export interface SandboxStatusView {
  /** The config's "sandbox" as it applies ("auto" unless a trusted config says "off"). */
  mode: 'auto' | 'off';
  /** Commands run sandboxed now. */
  active: boolean;
  kind: 'bwrap' | 'sandbox-exec' | null;
  /** Why commands run outside (off, none here); null when active. */
  reason: string | null;
  /** How to install one; null when not needed or not possible. */
  install: string | null;
  /** An untrusted config asks for "off"; it is ignored until the folder is trusted. */
  ignored_off: boolean;
  /** The hosts sandboxed commands asked the proxy for lately, newest first. */
  network_log?: NetworkLogEntry[];
}

/** One host a sandboxed command's proxy was asked for, and what was decided. */
export interface NetworkLogEntry {
  at: string;
  command: string;
  /** host:port */
  host: string;
  allowed: boolean;
  reason: string;
}

/** Where a sandboxed process's port is reachable on this machine (127.0.0.1). */
export interface PortForwardView {
  /** The port inside the sandbox. */
  port: number;
  host_port: number;
}

/** What the sandbox's proxy let a command reach, and what it refused. */
export interface NetworkActivityView {
  reached: string[];
  refused: { host: string; reason: string }[];
}

/** A background process (bash run_in_background), as the tools, the Processes pane and the CLI see it. */
export interface ProcessView {
  process_id: string;
  command: string;
  description: string | null;
  /** Workspace-relative folder ('' for the root). */
  cwd: string;
  pid: number | null;
  /** starting: waiting for its wait_for; running: nothing to wait for; ready: wait_for met. */
  status: 'starting' | 'running' | 'ready' | 'exited' | 'killed';
  exit_code: number | null;
  signal: string | null;
  /** Why it was stopped: a request, the idle limit, the workspace closing. */
  kill_reason: string | null;
  sandboxed: boolean;
  /** Ports it listens on (inside the sandbox when sandboxed). */
  ports: number[];
  forwards: PortForwardView[];
  started_at: string;
  ended_at: string | null;
  session_id: string;
  correlation_id: string | null;
  output_bytes: number;
  /** The full log, workspace-relative; null when it could not be written. */
  log_path: string | null;
  network: NetworkActivityView | null;
}

/** The start of a process's log for the viewer; later bytes arrive as `processes.data`. */
export interface ProcessLogView {
  id: string;
  data: string;
  /** Byte offsets of the stream: `data` covers [from, to). */
  from: number;
  to: number;
}

/** Requests: renderer → host. `params` in, `result` out. */
export interface HostRequests {
  'app.info': { params: void; result: { version: string; transport: 'electron' | 'websocket'; platform: string } };
  'workspace.current': { params: void; result: WorkspaceInfo | null };
  'workspace.open': { params: { path: string }; result: WorkspaceInfo };
  /** Electron only: shows the native folder picker; resolves null when cancelled. */
  'workspace.pick': { params: void; result: WorkspaceInfo | null };
  'workspace.recent': { params: void; result: string[] };
  'workspace.complete': { params: { partial: string }; result: PathCompletion };
  'tree.list': { params: { dir: string }; result: TreeListing };
  'tree.gitStatus': { params: void; result: Record<string, GitBadge> };
  'file.read': { params: { path: string }; result: FileContent };
  /** Opens a workspace file in the person's own editor ($VISUAL, $EDITOR, VS Code, Zed, the OS default); says which. */
  'file.openInEditor': { params: { path: string; line?: number }; result: { editor: string } };
  /** Quick open: indexed files whose path holds the query's characters in order, best first. */
  'files.find': { params: { query: string; limit?: number }; result: { files: string[] } };
  /** Find in files: the same ripgrep search as the grep tool (.gitignore and search.exclude aware). */
  'search.text': { params: { query: string; regex?: boolean; case_sensitive?: boolean }; result: { matches: { path: string; line: number; text: string }[]; total: number } };
  'terminal.create': { params: { cols: number; rows: number; cwd?: string }; result: TerminalInfo };
  'terminal.input': { params: { id: string; data: string }; result: void };
  'terminal.resize': { params: { id: string; cols: number; rows: number }; result: void };
  /** Flow control: the renderer reports characters xterm has finished writing. */
  'terminal.ack': { params: { id: string; chars: number }; result: void };
  'terminal.kill': { params: { id: string }; result: void };
  'terminal.list': { params: void; result: TerminalInfo[] };
  'processes.list': { params: void; result: ProcessView[] };
  /** Stops the process and its whole family. */
  'processes.kill': { params: { id: string }; result: ProcessView };
  'processes.restart': { params: { id: string }; result: ProcessView };
  /** Shows this process's log (its newest bytes now, the rest as `processes.data`); id null: none. */
  'processes.watch': { params: { id: string | null }; result: ProcessLogView | null };
  /** Flow control, as for terminals: characters of `processes.data` the viewer has written. */
  'processes.ack': { params: { id: string; chars: number }; result: void };
  /** The folded modification log, newest first. */
  'modlog.list': { params: ModificationQuery; result: { modifications: ModificationView[]; total: number } };
  /** Before/after content of one modification. */
  'modlog.diff': { params: { modification_id: string }; result: DiffSides };
  /** HEAD (or empty outside git) → the file as it is on disk now. */
  'modlog.fileDiff': { params: { path: string }; result: DiffSides };
  /** Reverses a modification, or a whole group by its id (a redo of an undo); ROLLBACK_CONFLICT names the later modifications in the way. */
  'modlog.rollback': { params: { modification_id: string; reason?: string }; result: { rollback_id: string; file: string; files?: string[] } };
  /** Reverses one hunk (0-based, in the order of the modification's unified diff) the same safe way. */
  'modlog.revertHunk': { params: { modification_id: string; hunk: number }; result: { rollback_id: string; file: string } };
  'modlog.approve': { params: { modification_id: string }; result: void };
  /** A git commit of exactly the approved modifications' files. */
  'modlog.commitApproved': { params: { message: string }; result: { commit: string; files: string[] } };
  /** Starts a request in a session (a new one without session_id); its events arrive as chat.event. */
  'chat.send': { params: { session_id?: string; text: string }; result: { session_id: string; correlation_id: string } };
  'chat.stop': { params: { session_id: string }; result: void };
  'chat.sessions': { params: void; result: ChatSessionSummary[] };
  'chat.session': { params: { id: string }; result: ChatSessionView };
  'chat.newSession': { params: void; result: ChatSessionSummary };
  'chat.renameSession': { params: { id: string; title: string }; result: ChatSessionSummary };
  'chat.deleteSession': { params: { id: string }; result: void };
  /** What "Undo changes from here" would do: this request's and every later request's changes in the session. Changes nothing. */
  'chat.undoPreview': { params: { session_id: string; correlation_id: string }; result: UndoPreviewView };
  /** Applies the previewed undo (`digest`: refused when anything changed since); conflicting files skipped or the whole undo refused. */
  'chat.undo': { params: { session_id: string; correlation_id: string; digest: string; on_conflict: 'skip' | 'refuse' }; result: UndoResultView };
  /** The session's system prompt as last sent (`sent`), or, before any request, as it would be sent now. */
  'chat.systemPrompt': { params: { session_id?: string }; result: SystemPromptView & { sent: boolean } };
  'approvals.list': { params: void; result: ApprovalRequestView[] };
  /**
   * patterns: the edited "always" rule(s); absent: the proposed ones. scope: where "always" is
   * saved, the project's shared .loupe/config.json (default) or only this user's settings, for this folder.
   */
  'approvals.answer': { params: { id: string; answer: 'once' | 'always' | 'deny'; message?: string; patterns?: string[]; scope?: 'project' | 'user' }; result: { answered: boolean } };
  'settings.get': { params: void; result: LlmSettingsView };
  /** api_key absent: keep the saved key; '' clears it. */
  'settings.save': { params: { base_url: string; api_key?: string; model: string; context_tokens?: number }; result: LlmSettingsView };
  'settings.models': { params: LlmProbe | void; result: { models: string[] } };
  'settings.test': { params: LlmProbe | void; result: { ok: boolean; models: string[]; latency_ms: number; error?: string } };
  /** `edits.mode` of the open workspace's .loupe/config.json. */
  'settings.editsMode': { params: void; result: { mode: EditsModeName } };
  'settings.sandbox': { params: void; result: SandboxStatusView };
  'settings.setEditsMode': { params: { mode: EditsModeName }; result: { mode: EditsModeName } };
  /** The open folder's trust (see TrustView). */
  'trust.get': { params: void; result: TrustView };
  /** Trusts the config the person was shown (`digest`); a config changed since is not trusted. */
  'trust.accept': { params: { digest: string }; result: TrustView };
  'trust.decline': { params: { digest: string }; result: TrustView };
}

/** Events: host → renderer. */
export interface HostEvents {
  'workspace.opened': WorkspaceInfo;
  /** Something went wrong in the background for this folder (also kept in `WorkspaceInfo.notices`). */
  'workspace.notice': { root: string; message: string };
  /** Workspace-relative directories whose listing changed ('' is the root). */
  /** `all`: so many folders changed at once (a checkout) that every loaded one should be re-listed; `dirs` is then empty. */
  'tree.changed': { dirs: string[]; all?: boolean };
  /** The file index building in the background: files seen so far; `done` once complete. */
  'tree.indexProgress': { root: string; files: number; done: boolean };
  'tree.gitStatus': { status: Record<string, GitBadge> };
  /** git status did not finish within its time bound (slow), or finished in time again. */
  'tree.gitSlow': { slow: boolean };
  /** Workspace-relative paths created, changed or deleted on disk (by anyone). */
  /** `truncated`: more files changed than are listed (a checkout); any open file may have changed. */
  'file.changed': { paths: string[]; truncated?: boolean };
  /** The modification log grew (written by this or any other Loupe process on the workspace). */
  'modlog.changed': { count: number };
  'terminal.data': { id: string; data: string };
  'terminal.exit': { id: string; exitCode: number; signal?: number };
  /** The background processes changed (started, ready, ports, exited): the whole list. */
  'processes.changed': { processes: ProcessView[] };
  /** More of the watched process's log; `skipped`: bytes left out while the viewer was behind. */
  'processes.data': { id: string; data: string; offset: number; skipped?: number };
  'chat.event': { session_id: string; event: ChatEvent };
  'approvals.changed': { requests: ApprovalRequestView[] };
  /** On open, when the folder's config changes, and when trust is given or declined. */
  'trust.changed': TrustView;
}

export type RequestChannel = keyof HostRequests;
export type EventChannel = keyof HostEvents;
export type Params<C extends RequestChannel> = HostRequests[C]['params'];
export type Result<C extends RequestChannel> = HostRequests[C]['result'];

/** The API every transport offers the renderer. */
export interface HostClient {
  request<C extends RequestChannel>(channel: C, params: Params<C>): Promise<Result<C>>;
  on<E extends EventChannel>(event: E, listener: (payload: HostEvents[E]) => void): () => void;
}

/**
 * Structured facts about an error, for programs (the review pane, MCP clients): plain JSON.
 * ROLLBACK_CONFLICT: `blocking` (the later modification ids in the way), `modification_id`,
 * `file`, `outside_changes`. PERMISSION_DENIED: `denied_by` ('rule' | 'default' | 'user' |
 * 'unattended'), the person's `message` when they wrote one, the `rule` when one decided.
 */
export type ErrorDetails = Record<string, unknown>;

/** What crosses a transport when a request or a tool call fails. */
export interface WireError {
  code: ErrorCode;
  message: string;
  details?: ErrorDetails;
}

// Runtime lists of channel names: transports bind exactly these and nothing else.
// `satisfies` keeps them in lockstep with the maps above.
const requestChannelMap = {
  'app.info': true,
  'workspace.current': true,
  'workspace.open': true,
  'workspace.pick': true,
  'workspace.recent': true,
  'workspace.complete': true,
  'tree.list': true,
  'tree.gitStatus': true,
  'file.read': true,
  'file.openInEditor': true,
  'files.find': true,
  'search.text': true,
  'terminal.create': true,
  'terminal.input': true,
  'terminal.resize': true,
  'terminal.ack': true,
  'terminal.kill': true,
  'terminal.list': true,
  'processes.list': true,
  'processes.kill': true,
  'processes.restart': true,
  'processes.watch': true,
  'processes.ack': true,
  'modlog.list': true,
  'modlog.diff': true,
  'modlog.fileDiff': true,
  'modlog.rollback': true,
  'modlog.revertHunk': true,
  'modlog.approve': true,
  'modlog.commitApproved': true,
  'chat.send': true,
  'chat.stop': true,
  'chat.sessions': true,
  'chat.session': true,
  'chat.newSession': true,
  'chat.renameSession': true,
  'chat.deleteSession': true,
  'chat.undoPreview': true,
  'chat.undo': true,
  'chat.systemPrompt': true,
  'approvals.list': true,
  'approvals.answer': true,
  'settings.get': true,
  'settings.save': true,
  'settings.models': true,
  'settings.test': true,
  'settings.editsMode': true,
  'settings.sandbox': true,
  'settings.setEditsMode': true,
  'trust.get': true,
  'trust.accept': true,
  'trust.decline': true,
} satisfies Record<RequestChannel, true>;

const eventChannelMap = {
  'workspace.opened': true,
  'workspace.notice': true,
  'tree.changed': true,
  'tree.indexProgress': true,
  'tree.gitStatus': true,
  'tree.gitSlow': true,
  'file.changed': true,
  'modlog.changed': true,
  'terminal.data': true,
  'terminal.exit': true,
  'processes.changed': true,
  'processes.data': true,
  'chat.event': true,
  'approvals.changed': true,
  'trust.changed': true,
} satisfies Record<EventChannel, true>;

export const REQUEST_CHANNELS = Object.keys(requestChannelMap) as RequestChannel[];
export const EVENT_CHANNELS = Object.keys(eventChannelMap) as EventChannel[];

/** Electron IPC channel names are namespaced so no other code can collide with them. */
export const ipcChannel = (name: RequestChannel | EventChannel): string => `loupe:${name}`;

/** Where the page of `loupe serve` keeps its access token: this tab, this origin, no cookie. */
export const TOKEN_STORAGE_KEY = 'loupe.token';

/** Messages on the WebSocket transport. */
export type WsClientMessage = { t: 'req'; id: number; ch: RequestChannel; p: unknown };
export type WsServerMessage =
  | { t: 'res'; id: number; ok: true; r: unknown }
  | { t: 'res'; id: number; ok: false; e: WireError }
  | { t: 'evt'; ch: EventChannel; p: unknown };

/** What an Electron IPC handler returns: errors travel as data so their codes survive. */
export type IpcResult = { ok: true; r: unknown } | { ok: false; e: WireError };

/** The object the preload exposes as `window.loupe`. */
export interface PreloadBridge {
  /** One method per request channel. */
  requests: { [C in RequestChannel]: (params: Params<C>) => Promise<IpcResult> };
  /** Subscribes to one event channel; returns the unsubscribe function. */
  on(event: EventChannel, listener: (payload: unknown) => void): () => void;
}
