// The folders an ACP connection works in: each session names its `cwd`, and each folder (by
// realpath) gets its services from the composition root once, with one AgentHost over them — the
// same sessions, transcripts, queue, Stop, undo and runners as the app's — however many sessions
// it holds. Its questions go to the editor of the session that asked.
import type { HostEvents } from '../../../shared/contract';
import { AgentHost } from '../../host/agent';
import type { LlmSettingsFileOptions } from '../../host/llmSettings';
import type { EditorBuffers } from '../../agent/tools/types';
import type { Logger } from '../../services/log/logger';
import type { Responder } from '../../services/permissions/approvalQueue';
import type { UserSettings } from '../../services/settings/userSettings';
import type { Asker, WorkspaceServices } from '../../workspace/compose';
import { workspaceRoot } from '../workspaceRoot';

export interface AcpFolder {
  root: string;
  services: WorkspaceServices;
  host: AgentHost;
  /** Starts the folder's MCP servers once, before its first session is answered (listing its sessions starts none). */
  servers(): Promise<void>;
}

export interface AcpFoldersOptions {
  user: UserSettings;
  logger: Logger;
  env: NodeJS.ProcessEnv;
  keys: LlmSettingsFileOptions;
  /** The composition root, for one folder asking through `asker`. */
  compose(root: string, asker: Asker): WorkspaceServices;
  /** When the folder is opened: its trust said, its config read (its problems said); returns what to stop before its services go. */
  prepare(folder: AcpFolder): Promise<(() => Promise<void>) | void>;
  /** Before its first session is answered: its MCP servers started. */
  startServers(folder: AcpFolder): Promise<void>;
  /** Answers the folder's questions (through the editor of the session that asked). */
  respond(root: string): Responder;
  /** A session's chat event. */
  event(payload: HostEvents['chat.event']): void;
  /** The editor's copy of files for a session's tools. */
  buffers(sessionId: string): EditorBuffers | undefined;
}

export class AcpFolders {
  private readonly open = new Map<string, Promise<AcpFolder>>();
  /** What each folder's preparation left running (a watcher), stopped before its services. */
  private readonly cleanups = new Map<string, () => Promise<void>>();

  constructor(private readonly opts: AcpFoldersOptions) {}

  /** The folder at `cwd` (made ready on first use); throws INVALID_ARGUMENT for a missing folder. */
  async get(cwd: string): Promise<AcpFolder> {
    const root = await workspaceRoot(cwd);
    let folder = this.open.get(root);
    if (!folder) {
      folder = this.make(root);
      this.open.set(root, folder);
      folder.catch(() => this.open.delete(root));
    }
    return folder;
  }

  private async make(root: string): Promise<AcpFolder> {
    const o = this.opts;
    const services = o.compose(root, { kind: 'responder', respond: o.respond(root) });
    const host = new AgentHost({
      user: o.user,
      services: () => services,
      emit: (event, payload) => {
        if (event === 'chat.event') o.event(payload as HostEvents['chat.event']);
      },
      env: o.env,
      keys: o.keys,
      logger: o.logger,
      editorBuffers: (id) => o.buffers(id),
    });
    let servers: Promise<void> | null = null;
    const folder: AcpFolder = { root, services, host, servers: () => (servers ??= o.startServers(folder)) };
    try {
      const cleanup = await o.prepare(folder);
      if (cleanup) this.cleanups.set(root, cleanup);
    } catch (err) {
      await host.dispose().catch(() => undefined);
      await services.dispose().catch(() => undefined);
      throw err;
    }
    return folder;
  }

  /** The folders made so far. */
  async all(): Promise<AcpFolder[]> {
    const settled = await Promise.allSettled(this.open.values());
    return settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  }

  /** Stops every request (sessions saved), then every folder's processes and servers. */
  async dispose(): Promise<void> {
    const folders = await this.all();
    this.open.clear();
    await Promise.all(folders.map((f) => f.host.dispose().catch(() => undefined)));
    await Promise.all([...this.cleanups.values()].map((stop) => stop().catch(() => undefined)));
    this.cleanups.clear();
    await Promise.all(folders.map((f) => f.services.dispose().catch(() => undefined)));
  }
}
