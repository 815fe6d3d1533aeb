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
  /** The folder has a dev container definition (`.devcontainer/devcontainer.json` or `.devcontainer.json`): "Reopen in container" is offered. */
  devcontainer?: boolean;
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

/**
 * What `loupe serve` writes into the page it serves, as a JSON data block with the id
 * BOOT_ELEMENT_ID: the open folder and its root listing, so the first render has the tree.
 */
export interface BootData {
  workspace: WorkspaceInfo;
  listing: TreeListing;
}

export interface FileContent {
  path: string;
  /** Present unless the file is binary or too large to show. */
  content?: string;
  size: number;
  binary: boolean;
  tooLarge: boolean;
  language: string;
  /** Why the viewer shows it read-only (its bytes are not UTF-8 text a save would keep); absent when it can be edited. */
  read_only?: string;
}

/** What the person's save from the viewer did (`file.save`). */
export interface FileSaveResult {
  file: string;
  /** The modification the save made (tool `person`); absent when the disk already held this text. */
  modification_id?: string;
  /** The file's text on disk now: the person's, merged with what changed on disk since `base` when anything did. */
  content: string;
  /** The person's edits were merged with changes made on disk after they began editing. */
  merged: boolean;
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
  /** A subagent of that session made it: the child's id (the timeline filters by it). */
  agent_id?: string;
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
  group_kind?: 'command' | 'undo' | 'redo' | 'rollback' | 'worktree';
  /** A command's change: the command line that made it. */
  command?: string;
  /** A command's change: ignored entries that changed too (not recorded). */
  ignored_changed?: number;
  renamed_from?: string;
  renamed_to?: string;
  /** An undo's lines: the request the undo started from. */
  undo_of?: string;
  /** What the language server said the write introduced (absent: no server serves the file). */
  diagnostics?: DiagnosticsView;
}

/** One problem a language server reports: 1-based lines and columns, as read_file numbers lines. */
export interface ProblemView {
  line: number;
  column: number;
  end_line: number;
  end_column: number;
  severity: 'error' | 'warning' | 'info' | 'hint';
  message: string;
  source: string;
  code?: string;
  /** In a view over several files (a group rollback, an undo): the file it is in. */
  file?: string;
}

/**
 * The problems one write introduced, compared with the file's before (a write tool's
 * `data.diagnostics`, the modification log's `diagnostics`, an edit approval's preview).
 */
export interface DiagnosticsView {
  /** At most 20, errors first. */
  introduced: ProblemView[];
  /** Problems the file had before that are gone. */
  resolved_count: number;
  /** False when the server could not say in time (starting, crashed, slow); `reason` says why. */
  available: boolean;
  /** Every introduced problem, beyond the 20 listed. */
  introduced_count: number;
  /** Of the introduced: errors and warnings. */
  errors: number;
  warnings: number;
  server: string;
  reason?: string;
}

/** A language server of the open folder, for the status bar. */
export interface LspStatusView {
  language: string;
  server: string;
  state: 'starting' | 'ready' | 'restarting' | 'stopped' | 'failed';
  sandboxed: boolean;
  pid?: number;
  /** A TypeScript server's TypeScript: its version and whose (`loupe`, `workspace`, or what the server says). */
  typescript?: { version: string; source: string };
  message?: string;
}

/** A file's problems as the server sees its current text; `unavailable` says why there are none to show. */
export interface FileProblemsView {
  file: string;
  server: string | null;
  problems: ProblemView[];
  unavailable?: string;
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


/** working: a request runs; waiting: it waits for an answer to an approval card; done: no request runs. */
/** `new`: no request has run in it yet. */
export type SessionStatus = 'new' | 'working' | 'waiting' | 'done';

/** A chat session working in one of Loupe's git worktrees of the open folder, as the sidebar lists it. */
export interface WorktreeSessionView {
  session_id: string;
  title: string;
  /** The worktree's name; its branch is `loupe/<name>`. */
  worktree: string;
  branch: string;
  path: string;
  status: SessionStatus;
  /** The worktree's folder was deleted by hand (its branch may remain): nothing runs there. */
  missing: boolean;
  /** Against the commit the worktree shares with the main folder: files changed, lines added and removed (base → worktree). */
  files: number;
  added: number;
  removed: number;
  /** Of those files, how many the main folder already holds as the worktree has them (applied). */
  applied_files: number;
}

/** What "Apply to main folder" would write, file by file, and what conflicts with edits there. */
export interface WorktreeChangesView {
  worktree: string;
  branch: string;
  /** The commit the worktree and the main folder share. */
  base: string;
  files: { file: string; operation: 'create' | 'overwrite' | 'delete_file'; merged: boolean; added: number; removed: number }[];
  conflicts: { file: string; why: string }[];
  /** Changed files the main folder already holds (applied before): nothing left to write. */
  applied: { file: string; added: number; removed: number }[];
}

/** What discarding a worktree would lose (uncommitted changes, commits the main folder lacks); `digest` confirms exactly this. */
export interface WorktreeDiscardReportView {
  worktree: string;
  branch: string;
  path: string;
  missing: boolean;
  uncommitted: string[];
  commits: string[];
  digest: string;
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

/** `act`: the agent works as the rules allow; `plan`: it only reads, and its answer is a plan (docs/architecture.md, "Plan mode"). */
export type ChatMode = 'act' | 'plan';

/** Whose a command or skill is: Loupe's own, the person's (their folders), or the open repository's. */
export type SlashSource = 'built-in' | 'personal' | 'repository';

/** A value a command asks for by name (VS Code's `${input:name}`, Codex's `$NAME`): given as `name=value`, else asked for. */
export interface CommandInputView {
  name: string;
  placeholder?: string;
}

/** One entry of the composer's `/` list and of the settings' skills and commands (docs/architecture.md, "Skills and commands"). */
export interface SlashCommandView {
  /** Typed after the slash (`review`, `git:commit`); a skill's name. */
  name: string;
  kind: 'command' | 'skill';
  source: SlashSource;
  /** The folder it was found in, as a person writes it (`.claude/commands`, `~/.claude/skills`); absent for built-ins. */
  location?: string;
  /** Its file, workspace-relative or with ~; absent for built-ins. */
  path?: string;
  description: string;
  argument_hint?: string;
  /** Whose rules expand its arguments: claude, opencode, cursor, vscode, gemini, codex; skills follow Claude Code's. */
  dialect?: string;
  inputs?: CommandInputView[];
  /** Its `allowed-tools` as written. */
  allowed_tools?: string[];
  /** What is off about it, each a sentence: a cut description, YAML read line by line, a name taken. */
  problems: string[];
  /** Another of the same name is used instead (where it is, or `built-in`); a shadowed entry cannot be typed. */
  shadowed_by?: string;
}

/** What the `/` list and the settings show: every command and skill in reach, and the folders or files that could not be read. */
export interface SlashCommandsView {
  commands: SlashCommandView[];
  problems: { path: string; reason: string }[];
}

/** One event of the agent loop (src/main/agent/loop emits exactly these), as the chat pane receives it. */
export type ChatEventBody =
  | { type: 'request_started'; session_id: string; prompt: string; mode?: ChatMode }
  /** A slash command (or a skill called by its name) became the prompt: `text` is what the model is sent, shell output and files included. */
  | { type: 'command_expanded'; name: string; source: SlashSource; text: string }
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
  /** `for_person`: the result in words for the person where `output` speaks to the model; "" when the error line says it all. */
  | { type: 'tool_call_finished'; call_id: string; tool: string; ok: boolean; output: string; for_person?: string; data?: Record<string, unknown>; error?: WireError; duration_ms: number }
  /** After each model call: its tokens (as the server reported them, or estimated), the context used, the cost, the session's totals. */
  | { type: 'usage'; usage: UsageView }
  | { type: 'retry'; attempt: number; delay_ms: number; reason: string }
  /** Older messages were replaced by `summary` (mode `summary`) or dropped with a note (`dropped`, `summary` then says so); the request in progress is always kept word for word. */
  | { type: 'compacted'; mode: 'summary' | 'dropped'; removed_messages: number; tokens_before: number; tokens_after: number; summary?: string }
  /** A message the person sent while the request ran, given to the model at a tool boundary ("send now"). */
  | { type: 'steer'; text: string }
  /** A plan-mode request's answer, saved as the session's Markdown artifact at `path` (workspace-relative). */
  | { type: 'plan'; path: string; text: string }
  /**
   * A hook that decided something (docs/architecture.md, "Hooks"): `source` is the file it comes
   * from, `hook` its command line; `call_id` names the tool call it was about (PreToolUse,
   * PostToolUse), so the chat shows it under that card.
   */
  | { type: 'hook'; event: HookEventName; source: string; decision: HookDecisionName; ms: number; hook: string; call_id?: string; reason?: string }
  /** ABORTED: `message` says what the stop kept, cancelled and left unrun. */
  | { type: 'error'; code: ErrorCode; message: string }
  /** `usage`: the meter after the request's last model call, absent when no call was answered. */
  | { type: 'request_finished'; status: 'done' | 'error' | 'aborted' | 'turn_limit'; text: string; turns: number; usage?: UsageView }
  /**
   * A subagent began (its id and its parent are the event's `agent_id` and `parent_session_id`):
   * `call_id` is the parent's tool call that started it; `tools`, what it may use; `read_only`,
   * plan mode's layer whatever its tools; `worktree`, where an isolated one works.
   */
  | { type: 'subagent_started'; call_id: string; description: string; agent_type: string; background: boolean; read_only: boolean; tools: string[]; max_turns: number; token_budget: number; worktree?: string }
  /** A subagent ended: its status, its final words, its figures and the files its changes touched; `reason` says why it stopped or failed. */
  | { type: 'subagent_finished'; status: SubagentStatus; text: string; turns: number; tokens: number; cost_usd?: number; files: string[]; stopped_by?: string; reason?: string; worktree?: string };

/** A subagent's card: `running` until it ends done, failed (an error) or stopped (by the request's Stop, the person, its parent or a limit). */
export type SubagentStatus = 'running' | 'done' | 'failed' | 'stopped';

/**
 * Who an event is about, beside its request: a subagent's events reach its parent's stream (and
 * `loupe run --json`) carrying the child's session id as `agent_id` and its parent's as
 * `parent_session_id`; a grandchild's name the child as its parent.
 */
export interface AgentTag {
  agent_id?: string;
  parent_session_id?: string;
}

export type ChatEvent = ChatEventBody & { correlation_id: string; t: number } & AgentTag;

/** The events hooks run at, named as Claude Code names them. */
export type HookEventName = 'SessionStart' | 'SessionEnd' | 'UserPromptSubmit' | 'PreToolUse' | 'PostToolUse' | 'PostToolUseFailure' | 'PreCompact' | 'Stop' | 'Notification' | 'SubagentStart' | 'SubagentStop';

/**
 * What a hook's run said. allow | deny | ask: its PreToolUse decision. block: it stopped a prompt
 * or a stop, or told the model something after a tool. context: it added context for the model.
 * warn: it exited non-zero (the work went on). error: it timed out, was killed or could not start.
 * none: it said nothing. overruled: a Stop hook's third block in a row, set aside.
 */
export type HookDecisionName = 'allow' | 'deny' | 'ask' | 'block' | 'context' | 'warn' | 'error' | 'none' | 'overruled';

/** One hook as the settings list it (`hook-row`). */
export interface HookView {
  /** `<source>#<place in the file>`: what hooks.approve and hooks.setDisabled take. */
  id: string;
  event: HookEventName;
  matcher: string;
  /** The file it is written in: `~/.claude/settings.json`, `settings.json`, `.claude/settings.json`, `.claude/settings.local.json`, `.loupe/config.json`. */
  source: string;
  /** The person's own, or the repository's (asks before it first runs, runs in the sandbox). */
  owner: 'user' | 'project';
  kind: 'command' | 'http';
  /** The command line, or `POST <url>`. */
  command: string;
  /** approved: it runs; waiting: the person's move (trust the folder, approve it); disabled: it does not run. */
  status: 'approved' | 'waiting' | 'disabled';
  detail: string | null;
  sandboxed: boolean | null;
  timeout_s: number;
  /** Its last run while this host runs. */
  last: { at: string; event: HookEventName; decision: HookDecisionName; ms: number; reason?: string } | null;
}

export interface TokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** Where the context window's size came from: the server's /models, the settings, or Loupe's default. */
export type ContextWindowSource = 'server' | 'settings' | 'default';

/** Tokens and cost of a whole session so far (every request, compaction summaries included). */
export interface SessionUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Model calls counted, and how many of them the server did not report (estimated). */
  calls: number;
  estimated_calls: number;
  /** USD of the calls whose price was known; absent when none was. */
  cost_usd?: number;
  /** Calls counted while the model had no price (their cost is not in `cost_usd`); absent in older sessions. */
  unpriced_calls?: number;
}

/** One model call as the meter shows it. */
export interface UsageView extends TokenUsage {
  /** The server did not report this call's usage: the numbers are Loupe's estimate. */
  estimated: boolean;
  /** Tokens of the conversation so far: this call's prompt and answer. */
  conversation_tokens: number;
  /** The model's context window in tokens, and where that number came from. */
  context_window: number;
  context_window_source: ContextWindowSource;
  /** USD for this call, when the model's price is known. */
  cost_usd?: number;
  session: SessionUsage;
}

/** Something attached to a message: a file or folder of the workspace, lines of a file, or an image. */
export type ChatAttachment =
  | { kind: 'file'; path: string }
  | { kind: 'dir'; path: string }
  /** Lines [first, last] (1-based, inclusive) of a file: the viewer's selection. */
  | { kind: 'selection'; path: string; lines: [number, number] }
  /**
   * `data`: base64 of the image's bytes; `media_type`: image/png, image/jpeg, image/gif or image/webp.
   * `thumbnail`: a small data URL the client made of it, kept with the sent message to show it.
   */
  | { kind: 'image'; name: string; media_type: string; data: string; thumbnail?: string };

/** What a sent message shows of its attachments (an image's bytes are not kept here). */
export interface AttachmentView {
  kind: ChatAttachment['kind'];
  /** The path, or the image's name. */
  label: string;
  path?: string;
  lines?: [number, number];
  /** Characters of the file's text sent (after the cap), or the image's bytes. */
  size: number;
  /** The content was cut to the cap. */
  truncated?: boolean;
  /** An image's thumbnail as the client sent it (a data URL of at most THUMBNAIL_MAX_CHARS). */
  thumbnail?: string;
}

/** One entry of the `@` picker: a file or folder of the index that a read would allow without asking. */
export interface MentionItem {
  kind: 'file' | 'dir';
  path: string;
}

export interface ChatSessionSummary {
  id: string;
  title: string;
  created_at: string;
  updated_at: string;
  requests: number;
  /** A request of this session is running now. */
  running?: boolean;
  /** Who does its work: absent for Loupe's own agent, else a hosted agent's name (`agents`). */
  agent?: string;
}

/**
 * One step of a conversation as the chat folds it: the loop's events, and the person's message
 * (which the loop does not echo). The live stream and a reopened session are folded by the same
 * function, so a reload shows exactly what was shown live.
 */
export type ChatTranscriptEntry = (ChatEventBody & AgentTag) | { type: 'user_message'; text: string; correlation_id?: string; mode?: ChatMode; attachments?: AttachmentView[] };

/** A message sent while the agent works: it waits, and goes as the next request, or at the next tool boundary once `steer`. */
export interface QueuedMessageView {
  id: string;
  text: string;
  mode: ChatMode;
  /** "Send now": given to the model at the next tool boundary of the running request. */
  steer: boolean;
}

/** Where an edited message forked the conversation: the active branch's request there, and every branch at that point. */
export interface ForkView {
  correlation_id: string;
  /** In the order they were made; `label`: the first line of that branch's message there. */
  branches: { id: string; label: string; current: boolean }[];
}

export interface ChatSessionView {
  session: ChatSessionSummary;
  /** The conversation so far, in order: fold it as the live events are folded. */
  entries: ChatTranscriptEntry[];
  /** The correlation id of the request running now, if any. */
  running_correlation_id?: string;
  /** Requests an undo started from that is still in effect (its group redoes it). */
  undone?: { correlation_id: string; group_id: string }[];
  /** The meter as the session's last model call left it. */
  usage?: UsageView;
  /** Messages waiting while the agent works. */
  queued?: QueuedMessageView[];
  /** Where edited messages forked the conversation. */
  forks?: ForkView[];
}

/** `review`: edits are written, then reviewed; `ask`: each edit waits for approval first. */
export type EditsModeName = 'review' | 'ask';

export type PermissionKindName = 'read' | 'edit' | 'bash' | 'webfetch' | 'external_directory' | 'test' | 'network' | 'mcp';

/** A permission kind, or a question that is not a rule: starting a repository's MCP server, a server's own question, running a repository's hook or agent, a repository's skill or command pre-approving tools. */
export type ApprovalKindName = PermissionKindName | 'mcp-server' | 'elicitation' | 'hook' | 'skill' | 'agent';

/**
 * Another agent a session can run inside Loupe (ACP), as the session bar and the settings show it.
 * `ready`: a session can use it now; `missing`: its program is not found; `pending`: the person's
 * move (trust the folder, or it asks for approval at first use); `disabled`: configured off, or a
 * ready entry not enabled yet (`source` `ready`).
 */
export interface AgentView {
  name: string;
  label: string;
  source: 'user' | 'project' | 'ready';
  /** The command line as configured. */
  command: string;
  status: 'ready' | 'missing' | 'pending' | 'disabled';
  detail: string | null;
  /** The program found now (PATH or absolute), or null. */
  program: string | null;
  /** Whether it runs inside the OS sandbox (null: not known until it starts). */
  sandboxed: boolean | null;
}

/** A question from the permission engine waiting for the person. */
export interface ApprovalRequestView {
  id: string;
  kind: ApprovalKindName;
  tool: string;
  summary: string;
  reason: string;
  /** The rule that made it ask, as text; null: no rule (the built-in default). */
  rule: string | null;
  /** What "allow always" would add to .loupe/config.json. */
  always: { kind: PermissionKindName; pattern: string; action: 'allow' | 'ask' | 'deny'; sandbox?: boolean; hosts?: string[] }[];
  /** Commands: true runs inside the OS sandbox, false outside it (the card says so); absent: no sandbox applies. */
  sandboxed?: boolean;
  /**
   * Why this cannot be taken back (a destructive command, a write outside the workspace): the card
   * carries `data-risk="high"`, says why, and makes Deny its default.
   */
  risk?: string[];
  /** A background process: it keeps running after the call returns (the card says so). */
  background?: boolean;
  /** For edits: the proposed change as a unified diff. */
  diff?: string;
  /** More to read before answering: an MCP call's arguments as formatted JSON, a server's whole configuration. */
  details?: string;
  /** For edits: both sides whole, for a diff editor (null: the file does not exist on that side). */
  edit?: { path: string; before: string | null; after: string | null; language: string; diagnostics?: DiagnosticsView };
  /** The tool call that asked (the chat card with this id waits on it); absent outside a chat. */
  call_id?: string;
  /** The request that call belongs to. */
  correlation_id?: string;
  /** The chat session that asked: every session's questions wait in the one queue. */
  session_id?: string;
  /** That session's title, and its worktree's name when it works in one, for the card to name it. */
  session_title?: string;
  worktree?: string;
  /** A subagent asked: its id (its session's) and its parent's session; `session_title` is its description. */
  agent_id?: string;
  parent_session_id?: string;
  /** The folder's .loupe/config.json has this allow rule, which applies once the folder is trusted. */
  trust_would_allow?: string;
  createdAt: string;
}

/**
 * Whether the open folder's `.loupe/config.json` and `.mcp.json` may grant anything: they arrive
 * with a clone, so their allow rules, test commands and MCP servers apply only once the person
 * trusts these exact bytes.
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
  /** Language server commands the config names. */
  servers?: { language: string; command: string[] }[];
  /** MCP servers from `.loupe/config.json` or `.mcp.json` (each still asks before it first starts): the command line or URL. */
  mcp_servers: { name: string; file: string; target: string }[];
  /** Hooks from `.claude/settings.json`, `.claude/settings.local.json` or `.loupe/config.json` (each still asks before it first runs). */
  hooks?: { event: HookEventName; matcher: string; command: string; file: string }[];
  /** Other agents `.loupe/config.json` names (each still asks before it first runs, and runs in the sandbox): the command line. */
  agents?: { name: string; target: string }[];
}

/** One row of the settings' model table: what Loupe knows of a model that its server may not say. */
export interface ModelSettingsRow {
  model: string;
  /** USD per million tokens of prompt and of answer. */
  input_usd_per_mtok?: number;
  output_usd_per_mtok?: number;
  /** The model takes images (true), or is text-only (false); absent: as the server says, else text-only. */
  images?: boolean;
}

/** A provider or local server the "Connect a model" panel offers, with its usual base URL. */
export interface ModelPreset {
  id: string;
  name: string;
  base_url: string;
  /** The provider needs an API key (local servers do not). */
  needs_key: boolean;
  local: boolean;
}

/** What is known of the configured model: from the server's /models, else the settings, else defaults. */
export interface ModelFactsView {
  context_window: number;
  context_window_source: ContextWindowSource;
  /** Whether images may be attached, and who said so. */
  images: boolean;
  images_source: 'settings' | 'server' | 'unknown';
  /** USD per million tokens, when known (the settings' table, else the server's own prices). */
  input_usd_per_mtok?: number;
  output_usd_per_mtok?: number;
}

export interface LlmSettingsView {
  base_url: string;
  model: string;
  context_tokens?: number;
  /** The model table (prices, images), as saved. */
  models: ModelSettingsRow[];
  /** The configured model's facts; absent when no model is configured. */
  model_facts?: ModelFactsView;
  /** The presets of the "Connect a model" panel. */
  presets: ModelPreset[];
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

/**
 * What "Open in editor" did: `opened` with the editor's name, or why no editor could be opened
 * for this client; either way the file's absolute path (and line) to copy, and the machine
 * Loupe runs on, where the editor opens (a browser may be elsewhere).
 */
export interface EditorOpenView {
  opened: boolean;
  editor?: string;
  reason?: string;
  path: string;
  line?: number;
  host: string;
}

/** The start of a process's log for the viewer; later bytes arrive as `processes.data`. */
export interface ProcessLogView {
  id: string;
  data: string;
  /** Byte offsets of the stream: `data` covers [from, to). */
  from: number;
  to: number;
}

/** One MCP server of the open folder, as the settings and `loupe run` show it. */
export type McpServerStatus = 'connecting' | 'ready' | 'failed' | 'pending';

export interface McpServerView {
  name: string;
  /** The person's own (their settings) or the repository's (`.loupe/config.json`, `.mcp.json`). */
  source: 'user' | 'project';
  /** The file it is configured in. */
  file: string;
  transport: 'stdio' | 'http' | 'sse';
  /** The command line or URL. */
  target: string;
  /**
   * A fixed vocabulary (the settings rows' `data-status`). pending: not running, and it is the
   * person's move: approve it, trust the folder, sign in, Restart one they declined, or enable one
   * they disabled (`disabled`).
   */
  status: McpServerStatus;
  /** Why, in a sentence: the error, what it waits for, why it is not running; null when ready. */
  detail: string | null;
  /** Its tools' names as the server gives them (ready, or down and expected back). */
  tools: string[];
  /** The same tools with the server's description of each (empty when it gives none). */
  tool_details: { name: string; description: string }[];
  /** A server of the person's own settings, as the settings form edits it; absent for a repository's. */
  config?: McpServerConfigView;
  /** The last lines of its stderr (stdio servers). */
  stderr: string[];
  /** Runs inside the OS sandbox; null: not a local program, or not started. */
  sandboxed: boolean | null;
  /** The person disabled it (in this folder, or `"disabled": true`): its status is then `pending`. */
  disabled: boolean;
  /** Restart would do something now: not disabled, not waiting on a question already asked, not waiting for trust. */
  restartable: boolean;
  /** Restarts after crashes since it was last started by hand. */
  restarts: number;
  /** While it waits for the person to sign in: the page to open. */
  sign_in_url?: string;
}

/**
 * One of the person's own MCP servers as the settings form shows and saves it (the `mcpServers`
 * entry of their settings). Environment and header values that may be secrets are never sent to a
 * client: `value` is null for those, and saving null keeps the value as saved. A value that only
 * names a variable of Loupe's environment (`${env:TOKEN}`, `Bearer ${env:TOKEN}`) is shown.
 */
export interface McpServerConfigView {
  transport: 'stdio' | 'http' | 'sse';
  /** stdio: the program and its arguments. */
  command?: string;
  args?: string[];
  cwd?: string;
  /** stdio: the hosts it may reach through the sandbox's proxy; none: no network. */
  network_hosts?: string[];
  /** stdio: false runs it outside the OS sandbox. */
  sandbox?: boolean;
  /** http and sse: where it is. */
  url?: string;
  env: { name: string; value: string | null }[];
  headers: { name: string; value: string | null }[];
}

/** The state of a remote workspace's link, as the window shows it (`remote-status`'s `data-state`). */
export type RemoteLinkState = 'connecting' | 'connected' | 'reconnecting' | 'lost';

/** Where a remote workspace is and how its link stands; sent by the local side of the link. */
export interface RemoteStatusView {
  kind: 'ssh' | 'devcontainer';
  /** The target as typed: `ssh://alice@box/src/app`, `devcontainer:///home/alice/app`. */
  target: string;
  /** For people: `alice@box`, `container app (podman)`. */
  label: string;
  /** The folder there. */
  path: string;
  state: RemoteLinkState;
  /** What is happening or why the link is down ("uploading Loupe 0.1.0 (31 MB)", "ssh: Connection refused"). */
  message?: string;
  /** Ports there reachable on this machine's 127.0.0.1: what processes listen on, and `forwardPorts`. */
  ports: { remote_port: number; local_port: number }[];
  /** Whether commands there run in the OS sandbox, and why not when they do not. */
  sandbox?: { active: boolean; reason: string | null };
}

/** A host Open Remote Folder offers: from ~/.ssh/config, or opened before. */
export interface RemoteHostView {
  /** What goes after `ssh://`: a Host alias of ~/.ssh/config, or `user@host:port`. */
  host: string;
  source: 'ssh_config' | 'recent';
  /** The config's HostName/User/Port, for people. */
  detail?: string;
}

/** A remote folder opened before, newest first. */
export interface RemoteRecentView {
  target: string;
  opened_at: string;
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
  /**
   * The person's own edit, saved through the modification log as a modification of tool `person`.
   * `content` is the editor's text (its line breaks are put back as the file has them), `base` the
   * file's text the editing began from: a file changed on disk since is merged three ways, and
   * FILE_CHANGED_SINCE_READ when the same lines changed (nothing written). `overwrite` writes the
   * person's text whatever the disk holds (what it replaces stays in the log).
   */
  'file.save': { params: { path: string; content: string; base: string; overwrite?: boolean }; result: FileSaveResult };
  /** Opens a workspace file in the person's own editor ($VISUAL, $EDITOR, VS Code, Zed, the OS default); says which. */
  'file.openInEditor': { params: { path: string; line?: number }; result: EditorOpenView };
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
  /** The open folder's MCP servers with their status. */
  'mcp.list': { params: void; result: McpServerView[] };
  /** Stops and starts a server again (a repository's server that was declined asks again). */
  'mcp.restart': { params: { name: string }; result: McpServerView[] };
  /** Disables (stops, and keeps stopped in this folder) or enables a server. */
  'mcp.setDisabled': { params: { name: string; disabled: boolean }; result: McpServerView[] };
  /** Adds or changes one of the person's own servers in their settings (`previous_name`: the one edited, when renamed); it starts at once. */
  'mcp.save': { params: { name: string; previous_name?: string; server: McpServerConfigView }; result: McpServerView[] };
  /** Removes one of the person's own servers from their settings; it stops. */
  'mcp.remove': { params: { name: string }; result: McpServerView[] };
  /** Every hook of the open folder (the person's and the repository's) with its status and last result. */
  'hooks.list': { params: void; result: HookView[] };
  /** Other agents a session can run here (ACP), with their status, and the ready entries the person can enable. */
  'agents.list': { params: void; result: AgentView[] };
  /** Enables a ready entry (written into the person's settings; `folder`: where its program is) or disables one of theirs. */
  'agents.enable': { params: { name: string; enabled: boolean; folder?: string }; result: AgentView[] };
  /** Approves a repository's hook in this folder (as "always" on its card). */
  'hooks.approve': { params: { id: string }; result: HookView[] };
  /** Turns a hook off (or on again) in this folder. */
  'hooks.setDisabled': { params: { id: string; disabled: boolean }; result: HookView[] };
  /** The folded modification log, newest first. */
  /** The requests' names for the timeline: each id's prompt, its first line cut short (ids no saved session holds are left out). */
  'modlog.requestNames': { params: { ids: string[] }; result: Record<string, string> };
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
  /**
   * Starts a request in a session (a new one without session_id); its events arrive as chat.event.
   * Attachments are read by the same rules as read_file (a file a rule denies or asks about is refused).
   * `mode`: plan only reads (default act). `plan`: executes the plan of that plan-mode request, whose
   * correlation id the changes then carry. `agent`: for a new session, the hosted agent that does its
   * work (`agents.list`); the session belongs to it for good.
   */
  /**
   * A text that starts with a command's or skill's name (`/review src/a.ts`) is expanded first, in
   * the command's own dialect; `inputs` gives the values it asks for by name (a missing one refuses
   * the request with INVALID_ARGUMENT and `details.missing_inputs`).
   */
  'chat.send': { params: { session_id?: string; text: string; attachments?: ChatAttachment[]; mode?: ChatMode; plan?: string; inputs?: Record<string, string>; agent?: string }; result: { session_id: string; correlation_id: string } };
  /** The built-in commands, the custom commands and the skills in reach of the open folder, shadowed ones included. */
  'commands.list': { params: void; result: SlashCommandsView };
  /** The `@` picker: indexed files and folders matching the query (quick open's ranking), none that a read rule denies or asks about. */
  'chat.mentions': { params: { query: string; limit?: number }; result: { items: MentionItem[] } };
  /** A message for a session that may be working: queued while it is (see chat.queued), sent at once when it is not (correlation_id then set). */
  'chat.enqueue': { params: { session_id: string; text: string; mode?: ChatMode }; result: { id: string; correlation_id?: string } };
  'chat.queueEdit': { params: { session_id: string; id: string; text: string }; result: void };
  'chat.queueRemove': { params: { session_id: string; id: string }; result: void };
  /** Gives a queued message to the model at the next tool boundary; sends it at once when nothing runs. */
  'chat.sendNow': { params: { session_id: string; id: string }; result: { correlation_id?: string } };
  /** Edit and resend: forks the conversation before that request (the old branch is kept) and sends `text`. */
  'chat.edit': { params: { session_id: string; correlation_id: string; text: string; mode?: ChatMode }; result: { session_id: string; correlation_id: string } };
  /** Shows another branch of the conversation (from chat.session's forks). */
  'chat.switchBranch': { params: { session_id: string; branch_id: string }; result: ChatSessionView };
  'chat.stop': { params: { session_id: string }; result: void };
  /** Stops one subagent of the session's running request (its card's Stop); the rest go on. */
  'chat.stopAgent': { params: { session_id: string; agent_id: string }; result: void };
  'chat.sessions': { params: void; result: ChatSessionSummary[] };
  'chat.session': { params: { id: string }; result: ChatSessionView };
  /** A new session; `agent`: a hosted agent does its work instead of Loupe's own (it belongs to that agent for good). */
  'chat.newSession': { params: { agent?: string } | void; result: ChatSessionSummary };
  'chat.renameSession': { params: { id: string; title: string }; result: ChatSessionSummary };
  'chat.deleteSession': { params: { id: string }; result: void };
  /** What "Undo changes from here" would do: this request's and every later request's changes in the session. Changes nothing. */
  'chat.undoPreview': { params: { session_id: string; correlation_id: string }; result: UndoPreviewView };
  /** Applies the previewed undo (`digest`: refused when anything changed since); conflicting files skipped or the whole undo refused. */
  'chat.undo': { params: { session_id: string; correlation_id: string; digest: string; on_conflict: 'skip' | 'refuse' }; result: UndoResultView };
  /** What Redo would do for a request an undo started from: that undo reversed, as a preview like undo's. Changes nothing. */
  'chat.redoPreview': { params: { session_id: string; correlation_id: string }; result: UndoPreviewView };
  /** Applies the previewed redo (`digest`: refused when anything changed since); conflicting files skipped or the whole redo refused. */
  'chat.redo': { params: { session_id: string; correlation_id: string; digest: string; on_conflict: 'skip' | 'refuse' }; result: UndoResultView };
  /** The session's system prompt as last sent (`sent`), or, before any request, as it would be sent now. */
  'chat.systemPrompt': { params: { session_id?: string }; result: SystemPromptView & { sent: boolean } };
  /**
   * The session as a file: Markdown (`md`, readable) or JSON (complete, re-importable by `loupe
   * import`), without the secrets the settings hold. A browser saves it as a download.
   */
  'chat.export': { params: { session_id: string; format?: 'md' | 'json' }; result: { file_name: string; text: string } };
  /** The same, written where the person picks in the desktop app's save dialog (the format by the name's extension); null when cancelled. */
  'chat.exportToFile': { params: { session_id: string; format?: 'md' | 'json' }; result: { path: string } | null };
  'approvals.list': { params: void; result: ApprovalRequestView[] };
  /**
   * patterns: the edited "always" rule(s); absent: the proposed ones. scope: where "always" is
   * saved, the project's shared .loupe/config.json (default) or only this user's settings, for this folder.
   */
  'approvals.answer': { params: { id: string; answer: 'once' | 'always' | 'deny'; message?: string; patterns?: string[]; scope?: 'project' | 'user' }; result: { answered: boolean } };
  'settings.get': { params: void; result: LlmSettingsView };
  /** api_key absent: keep the saved key; '' clears it. */
  /** `models`: the whole model table (absent: kept as saved). */
  'settings.save': { params: { base_url: string; api_key?: string; model: string; context_tokens?: number; models?: ModelSettingsRow[] }; result: LlmSettingsView };
  'settings.models': { params: LlmProbe | void; result: { models: string[] } };
  /** Lists the models and, when the model is there, sends it one tiny request (`reply`: what it answered). */
  /** Lists the models and, when one is named (the probe's or the saved one), asks it a tiny question: `model` is the one asked. */
  'settings.test': { params: LlmProbe | void; result: { ok: boolean; models: string[]; latency_ms: number; model?: string; error?: string; reply?: string } };
  /** `edits.mode` of the open workspace's .loupe/config.json. */
  'settings.editsMode': { params: void; result: { mode: EditsModeName } };
  'settings.sandbox': { params: void; result: SandboxStatusView };
  'settings.setEditsMode': { params: { mode: EditsModeName }; result: { mode: EditsModeName } };
  /** The open folder's trust (see TrustView). */
  'trust.get': { params: void; result: TrustView };
  /** Trusts the config the person was shown (`digest`); a config changed since is not trusted. */
  'trust.accept': { params: { digest: string }; result: TrustView };
  'trust.decline': { params: { digest: string }; result: TrustView };
  /** The language servers of the open folder. */
  'lsp.status': { params: void; result: LspStatusView[] };
  /** A file's problems as its language server sees the file on disk now (server null: none serves it). */
  'lsp.problems': { params: { path: string }; result: FileProblemsView };
  /** Every file's latest problems the servers reported (a write, a look, a server's push): the Problems list. */
  'lsp.knownProblems': { params: void; result: FileProblemsView[] };
  /** The chat sessions working in worktrees of the open folder (docs/architecture.md, "Sessions side by side"). */
  'worktree.sessions': { params: void; result: WorktreeSessionView[] };
  /** Makes (or resumes) worktree `name` of HEAD on branch loupe/<name> and opens a chat session there. */
  'worktree.newSession': { params: { name: string }; result: WorktreeSessionView };
  /** What applying the worktree to the main folder would write, and each conflict; changes nothing. */
  'worktree.changes': { params: { name: string }; result: WorktreeChangesView };
  /** One file of the worktree against its base, for the diff view. */
  'worktree.fileDiff': { params: { name: string; path: string }; result: DiffSides };
  /** Applies the worktree's changes (or only `files`) to the main folder as one group of its log; APPLY_CONFLICT names each conflict and nothing is written. */
  'worktree.apply': { params: { name: string; files?: string[] }; result: { group_id: string; files: string[] } };
  /** What discarding the worktree would lose; changes nothing. */
  'worktree.discardReport': { params: { name: string }; result: WorktreeDiscardReportView };
  /** Stops its sessions and removes the worktree and its branch, only if `digest` is still its report's (else WORKTREE_CHANGED). */
  'worktree.discard': { params: { name: string; digest: string }; result: void };
  /** The remote workspace this window shows, or null for a folder of this machine. */
  'remote.status': { params: void; result: RemoteStatusView | null };
  /** Open Remote Folder's list: hosts of ~/.ssh/config and remote folders opened before. */
  'remote.hosts': { params: void; result: { hosts: RemoteHostView[]; recent: RemoteRecentView[] } };
  /** Opens `ssh://[user@]host[:port]/path` or `devcontainer:///path` in a window of its own; resolves with its address. */
  'remote.open': { params: { target: string }; result: { url: string } };
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
  /** An MCP server's status or tools changed: the whole list. */
  'mcp.changed': { servers: McpServerView[] };
  /** A hook ran, was approved, or the files that declare hooks changed: the whole list. */
  'hooks.changed': { hooks: HookView[] };
  'chat.event': { session_id: string; event: ChatEvent };
  /** The session's queued messages changed (sent, edited, removed, given to the model). */
  'chat.queued': { session_id: string; messages: QueuedMessageView[] };
  'approvals.changed': { requests: ApprovalRequestView[] };
  /** On open, when the folder's config changes, and when trust is given or declined. */
  'trust.changed': TrustView;
  /** A language server started, became ready, stopped, crashed. */
  'lsp.status': { servers: LspStatusView[] };
  /** A file's problems changed (a write, a look, a server's push). */
  'lsp.problems': FileProblemsView;
  /** A worktree session's status, title or changed lines moved: the whole list. */
  'worktree.sessions': { sessions: WorktreeSessionView[] };
  /** The desktop app's menu asks the page to do something it knows how to (the open session's export). */
  'app.command': { command: 'export-session' };
  /** A remote workspace's link changed state, or its forwarded ports did. */
  'remote.status': RemoteStatusView;
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
 * 'unattended' | 'mode' | 'agent'), the person's `message` when they wrote one, the `rule` when one decided.
 */
export type ErrorDetails = Record<string, unknown>;

/** What crosses a transport when a request or a tool call fails. */
export interface WireError {
  code: ErrorCode;
  message: string;
  details?: ErrorDetails;
  /**
   * The message in words for the person, where `message` speaks to the model (names its tools,
   * tells it what to call next). The chat, `loupe run` and an export show this; the model and MCP
   * clients get `message`.
   */
  for_person?: string;
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
  'file.save': true,
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
  'mcp.list': true,
  'mcp.restart': true,
  'mcp.setDisabled': true,
  'mcp.save': true,
  'mcp.remove': true,
  'hooks.list': true,
  'agents.list': true,
  'agents.enable': true,
  'hooks.approve': true,
  'hooks.setDisabled': true,
  'modlog.list': true,
  'modlog.requestNames': true,
  'modlog.diff': true,
  'modlog.fileDiff': true,
  'modlog.rollback': true,
  'modlog.revertHunk': true,
  'modlog.approve': true,
  'modlog.commitApproved': true,
  'chat.send': true,
  'chat.mentions': true,
  'commands.list': true,
  'chat.enqueue': true,
  'chat.queueEdit': true,
  'chat.queueRemove': true,
  'chat.sendNow': true,
  'chat.edit': true,
  'chat.switchBranch': true,
  'chat.stop': true,
  'chat.stopAgent': true,
  'chat.sessions': true,
  'chat.session': true,
  'chat.newSession': true,
  'chat.renameSession': true,
  'chat.deleteSession': true,
  'chat.undoPreview': true,
  'chat.undo': true,
  'chat.redoPreview': true,
  'chat.redo': true,
  'chat.systemPrompt': true,
  'chat.export': true,
  'chat.exportToFile': true,
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
  'lsp.status': true,
  'lsp.problems': true,
  'lsp.knownProblems': true,
  'worktree.sessions': true,
  'worktree.newSession': true,
  'worktree.changes': true,
  'worktree.fileDiff': true,
  'worktree.apply': true,
  'worktree.discardReport': true,
  'worktree.discard': true,
  'remote.status': true,
  'remote.hosts': true,
  'remote.open': true,
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
  'mcp.changed': true,
  'hooks.changed': true,
  'chat.event': true,
  'chat.queued': true,
  'approvals.changed': true,
  'trust.changed': true,
  'lsp.status': true,
  'lsp.problems': true,
  'worktree.sessions': true,
  'app.command': true,
  'remote.status': true,
} satisfies Record<EventChannel, true>;

export const REQUEST_CHANNELS = Object.keys(requestChannelMap) as RequestChannel[];
export const EVENT_CHANNELS = Object.keys(eventChannelMap) as EventChannel[];

/** Electron IPC channel names are namespaced so no other code can collide with them. */
export const ipcChannel = (name: RequestChannel | EventChannel): string => `loupe:${name}`;

/** Where the page of `loupe serve` keeps its access token: this tab, this origin, no cookie. */
export const TOKEN_STORAGE_KEY = 'loupe.token';
export const BOOT_ELEMENT_ID = 'loupe-boot';

/**
 * Messages on the WebSocket transport and on a remote host's link (one JSON text per line there).
 * The session layer (docs/architecture.md, "Sessions over a link that drops"): the server speaks
 * first (`ready`); the client says `hello` with its id and the last event it saw; `welcome` says
 * whether the events it missed follow (`events`) or it must read the state again (`reset`). Events
 * carry a sequence number `s`; requests resent after a reconnect keep their ids and never run
 * twice. A client that sends requests without a hello gets events and answers, without replay.
 */
export type WsClientMessage =
  | { t: 'req'; id: number; ch: RequestChannel; p: unknown }
  | {
      t: 'hello';
      /** Stable for the page's (or program's) life. */
      client: string;
      /** The server's stream and the last event seen on it; absent on a first connection. */
      stream?: string;
      since?: number;
      /** Ids of requests still waiting for an answer: the others' kept answers may go. */
      pending?: number[];
    };
export type WsServerMessage =
  | { t: 'res'; id: number; ok: true; r: unknown }
  | { t: 'res'; id: number; ok: false; e: WireError }
  | { t: 'evt'; ch: EventChannel; p: unknown; s?: number }
  | { t: 'ready' }
  /** `resumed`: the server still knew this client, so its unanswered requests can be sent again without running twice. */
  | { t: 'welcome'; stream: string; seq: number; replay: 'events' | 'reset'; resumed: boolean }
  /** From a relay between the window and a remote host: the state of the link behind it. */
  | { t: 'link'; state: RemoteLinkState; message?: string };

/** What an Electron IPC handler returns: errors travel as data so their codes survive. */
export type IpcResult = { ok: true; r: unknown } | { ok: false; e: WireError };

/** The object the preload exposes as `window.loupe`. */
export interface PreloadBridge {
  /** One method per request channel. */
  requests: { [C in RequestChannel]: (params: Params<C>) => Promise<IpcResult> };
  /** Subscribes to one event channel; returns the unsubscribe function. */
  on(event: EventChannel, listener: (payload: unknown) => void): () => void;
}
