// What one open folder's services are, as everything above the services floor sees them. The
// composition root (src/main/workspace/compose.ts) builds the one object of this shape per
// folder; the agent, the host and the front ends receive it. The type sits here, below all of
// them, so that the agent never imports the root that builds it (the root imports the agent's
// tools' types, so the other way round would be a loop between floors).
import type { NetworkLogEntry, SandboxStatusView } from '../../shared/contract';
import type { LanguageServers } from './lsp/languageServers';
import type { Logger } from './log/logger';
import type { McpServers } from './mcp/manager';
import type { Hooks } from './hooks/hooks';
import type { ModificationLog } from './modlog/modificationLog';
import type { ApprovalQueue } from './permissions/approvalQueue';
import type { PermissionGate } from './permissions/permissionGate';
import type { ProjectConfig } from './permissions/projectConfig';
import type { PermissionEngine } from './permissions/ruleEngine';
import type { ProcessManager } from './processes/processManager';
import type { SandboxProbe } from './sandbox/probe';
import type { SessionStore } from './sessions/sessionStore';
import type { UserSettings } from './settings/userSettings';
import type { CommandCapture } from './snapshots/commandCapture';
import type { SkillCatalog } from './skills/catalog';
import type { CommandCatalog } from './commands/catalog';
import type { ChangeJournal } from './workspace/changeJournal';
import type { FileIndex } from './workspace/fileIndex';
import type { ChangeBatch, WorkspaceWatcher } from './workspace/watcher';
import type { Worktrees } from './worktrees/worktrees';
import type { AgentDefinitions } from './agents/definitions';
import type { HostedAgents } from './hostedAgents/hostedAgents';

export interface WorkspaceServices {
  /** Realpath of the folder. */
  readonly root: string;
  /** The person's settings.json (one reader per config dir per process). */
  readonly user: UserSettings;
  readonly logger: Logger;
  /** The only write path for changes made on the person's behalf. */
  readonly modlog: ModificationLog;
  /** `.loupe/config.json` (and `.mcp.json`), read once per change, grants held until trusted. */
  readonly project: ProjectConfig;
  /** The one approval queue every question of this folder waits in. */
  readonly queue: ApprovalQueue;
  readonly engine: PermissionEngine;
  readonly permissions: PermissionGate;
  readonly sessions: SessionStore;
  readonly index: FileIndex;
  /** What the folder's watcher saw change since each command snapshot (fed only while one runs). */
  readonly journal: ChangeJournal;
  /** Whether commands can run in an OS sandbox here; probed on first use. */
  readonly sandbox: SandboxProbe;
  /** What commands write, recorded as modifications (snapshots of the work tree around each). */
  readonly captures: CommandCapture;
  /** Background processes (bash run_in_background); all stopped when the workspace is disposed. */
  readonly processes: ProcessManager;
  /** The MCP servers of the person and of the repository; started by whoever opens the folder (`mcp.sync()`). */
  readonly mcp: McpServers;
  /** The hooks of the person and of the repository: fired by the agent loop and the host (docs/architecture.md, "Hooks"). */
  readonly hooks: Hooks;
  /** The hosts sandboxed commands' proxies asked about lately (the settings show them). */
  readonly networkLog: NetworkLogEntry[];
  /** The language servers of this folder: the problems each write introduces. */
  readonly lsp: LanguageServers;
  /** Loupe's git worktrees of this folder's repository (sessions in a worktree get services of their own). */
  readonly worktrees: Worktrees;
  /** The skills in reach: the repository's skill folders and the person's (docs/architecture.md, "Skills and commands"). */
  readonly skills: SkillCatalog;
  /** The custom slash commands in reach, each in its own agent's dialect. */
  readonly commands: CommandCatalog;
  /** The subagent definitions of the repository and the person (.loupe/agents, .claude/agents, …). */
  readonly agents: AgentDefinitions;
  /** Other agents (ACP) a session may run here, each in the OS sandbox (docs/architecture.md, "Hosted agents"). */
  readonly hostedAgents: HostedAgents;
  /** Whether commands run sandboxed here, as the settings and the agent's system prompt say it. */
  sandboxStatus(): Promise<SandboxStatusView>;
  /** Hears what the gate could not do as asked (a failed "allow always" save), besides the log. */
  onWarning(listener: (message: string) => void): () => void;
  /** A watcher on this folder; whoever shows the changes starts and stops it. */
  watch(onBatch: (batch: ChangeBatch) => void, onError: (message: string) => void): WorkspaceWatcher;
  /** Stops the folder's processes and servers and writes what the stores still hold. */
  dispose(): Promise<void>;
}
