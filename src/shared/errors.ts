// Loupe's error codes. Types and constants only: the classes live in the main process.

export const ERROR_CODES = [
  'INVALID_ARGUMENT',
  'INVALID_PATH',
  'EDIT_INVALID_PATH',
  'PATH_OUTSIDE_WORKSPACE',
  // A link or a non-regular file where Loupe opens a path (its own state, or a race).
  'UNSAFE_PATH',
  'FILE_NOT_FOUND',
  'EDIT_FILE_NOT_FOUND',
  'FILE_READ_ERROR',
  'EDIT_FILE_READ_ERROR',
  'FILE_TOO_LARGE',
  'BINARY_FILE',
  'FILE_NOT_READ',
  'FILE_CHANGED_SINCE_READ',
  'ATTEMPT_TO_CREATE_EXISTING_FILE',
  'EDIT_NO_OCCURRENCE_FOUND',
  'EDIT_EXPECTED_OCCURRENCE_MISMATCH',
  'EDIT_NO_CHANGE',
  // A write whose result would differ from the file outside what the edit asked to change.
  'EDIT_INVARIANT_VIOLATED',
  'PERMISSION_DENIED',
  'TIMEOUT',
  // A sandboxed command failed because the OS sandbox stopped it (a write outside, the network).
  'SANDBOX_BLOCKED',
  'ABORTED',
  // A background process id that this workspace does not know (process_output, process_kill…).
  'PROCESS_NOT_FOUND',
  // A background process refused: the workspace already runs its limit of them.
  'PROCESS_LIMIT',
  // A subagent refused: the session already runs its limit of them, is as deep as they may go, or spent its budget.
  'AGENT_LIMIT',
  // An MCP server's tool while that server is not running (starting, failed, restarting, not approved).
  'MCP_SERVER_UNAVAILABLE',
  // An MCP server answered a call with an error (isError, or a JSON-RPC error).
  'MCP_TOOL_ERROR',
  // A hosted agent (ACP) cannot run now: not configured, its program missing, not approved, or it failed to start or answer.
  'AGENT_UNAVAILABLE',
  'ROLLBACK_CONFLICT',
  // A Loupe worktree name that names none (worktrees service).
  'WORKTREE_NOT_FOUND',
  // A discard confirmed against a report that no longer holds.
  'WORKTREE_CHANGED',
  // Applying a worktree's changes to the main folder would overwrite edits made there (details.conflicts).
  'APPLY_CONFLICT',
  'MODIFICATION_NOT_FOUND',
  'FETCH_FAILED',
  'FETCH_TOO_LARGE',
  'LLM_ERROR',
  // A request whose answer was lost with the connection after it ran (the state shows its effect).
  'CONNECTION_LOST',
  // A remote workspace's host could not be reached, installed or started (ssh, the container engine).
  'REMOTE_UNAVAILABLE',
  // The remote machine cannot run this Loupe (another OS or architecture, an older glibc).
  'REMOTE_UNSUPPORTED',
  // Not a tool error code: a host request that no workspace can answer yet, or an
  // internal failure surfaced to the UI.
  'NO_WORKSPACE',
  'INTERNAL',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];
