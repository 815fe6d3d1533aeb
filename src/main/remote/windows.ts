// Remote workspaces opened by this process (`loupe remote`, Open Remote Folder in `loupe serve` or
// the app): each is a RemoteSession and the relay its windows load. The model settings are this
// machine's (ModelSettings over its settings.json and keychain); the host there receives them in
// memory.
import path from 'node:path';
import type { RemoteHostView, Result } from '../../shared/contract';
import type { RemoteOpener } from '../host/host';
import type { LlmSettingsFileOptions } from '../host/llmSettings';
import { ModelSettings } from '../host/modelSettings';
import { nullLogger, type Logger } from '../services/log/logger';
import { userLog } from '../services/log/userLog';
import { defaultConfigDir } from '../services/settings/configDir';
import { systemKeys } from '../services/settings/keyStore';
import { openUserSettings } from '../workspace/compose';
import type { UserSettings } from '../services/settings/userSettings';
import type { ModelSpec } from './modelRoute';
import { RecentRemotes } from './recent';
import { startRelay, type LocalAnswers, type RelayServer } from './relay';
import { RemoteSession } from './session';
import { SshEnd } from './sshEnd';
import { SshLink } from './ssh';
import { configFileOf, sshConfigHosts } from './sshConfig';
import { formatTarget, parseTarget, type RemoteTarget } from './target';
import { devcontainerEnd } from './devcontainer';
import type { RemoteEnd } from './end';

export interface RemoteContext {
  configDir: string;
  /** This machine's Loupe checkout (what is copied there). */
  bundleDir: string;
  /** The built UI the relays serve. */
  rendererDir: string;
  user: UserSettings;
  keys?: LlmSettingsFileOptions;
  logger?: Logger;
  /** A terminal is there for ssh to ask in (a password, a new host key). */
  interactive?: boolean;
  env?: NodeJS.ProcessEnv;
}

/** This machine's model, as the host there gets it. */
export async function modelSpecOf(settings: ModelSettings): Promise<ModelSpec | null> {
  const c = await settings.config();
  if (!c) return null;
  return {
    ...(c.baseURL ? { base_url: c.baseURL } : {}),
    api_key: c.apiKey,
    model: c.model,
    ...(c.contextTokens ? { context_tokens: c.contextTokens } : {}),
    ...(c.modelRow ? { models: { [c.model]: c.modelRow } } : {}),
  };
}

/** The remote workspaces of a CLI command, with this user's settings, key and log. */
export function cliRemoteWindows(paths: { bundleDir: string; rendererDir: string }, extra: Partial<RemoteContext> = {}): RemoteWindows {
  const configDir = defaultConfigDir();
  return new RemoteWindows({
    configDir,
    bundleDir: paths.bundleDir,
    rendererDir: paths.rendererDir,
    user: openUserSettings(configDir),
    keys: systemKeys(configDir),
    logger: userLog({ configDir, stderr: 'env' }).logger,
    interactive: Boolean(process.stdin.isTTY && process.stderr.isTTY),
    ...extra,
  });
}

export interface OpenedRemote {
  session: RemoteSession;
  relay: RelayServer | null;
}

export class RemoteWindows implements RemoteOpener {
  readonly model: ModelSettings;
  private readonly recent: RecentRemotes;
  private readonly opened = new Map<string, OpenedRemote>();
  private readonly logger: Logger;

  constructor(private readonly ctx: RemoteContext) {
    this.model = new ModelSettings({ user: ctx.user, env: ctx.env ?? process.env, keys: ctx.keys });
    this.recent = new RecentRemotes(ctx.configDir);
    this.logger = ctx.logger ?? nullLogger;
  }

  async hosts(): Promise<Result<'remote.hosts'>> {
    const args = this.ctx.user.remote().ssh_args;
    const hosts: RemoteHostView[] = sshConfigHosts(configFileOf(args)).map((h) => ({
      host: h.alias,
      source: 'ssh_config',
      ...(h.hostName || h.user || h.port ? { detail: `${h.user ? `${h.user}@` : ''}${h.hostName ?? h.alias}${h.port ? `:${h.port}` : ''}` } : {}),
    }));
    return { hosts, recent: await this.recent.list() };
  }

  /** The session of a target, started (its host installed and running there). */
  async session(text: string, progress: (message: string) => void = () => undefined): Promise<RemoteSession> {
    const target = parseTarget(text);
    const key = formatTarget(target);
    const known = this.opened.get(key);
    if (known) return known.session;
    const { end, remotePath, fixedPorts } = await this.endFor(target, progress);
    const session = new RemoteSession({
      target,
      end,
      bundleDir: this.ctx.bundleDir,
      cacheDir: path.join(this.ctx.configDir, 'remote', 'bundles'),
      model: () => modelSpecOf(this.model),
      ...(remotePath ? { remotePath } : {}),
      ...(fixedPorts.length ? { fixedPorts } : {}),
      logger: this.logger,
    });
    const off = session.onStatus((s) => s.message && progress(s.message));
    try {
      await session.start();
    } finally {
      off();
    }
    this.opened.set(key, { session, relay: null });
    await this.recent.add(key).catch(() => undefined);
    return session;
  }

  private async endFor(target: RemoteTarget, progress: (message: string) => void): Promise<{ end: RemoteEnd; remotePath?: string; fixedPorts: number[] }> {
    if (target.kind === 'ssh') {
      const r = this.ctx.user.remote();
      const ssh = new SshLink(target, { configDir: this.ctx.configDir, args: r.ssh_args, program: r.ssh_path, interactive: this.ctx.interactive, env: this.ctx.env });
      return { end: new SshEnd(ssh), fixedPorts: [] };
    }
    return devcontainerEnd(target, this.ctx, progress);
  }

  /** What a remote window asks of this machine rather than of the host there. */
  answers(): LocalAnswers {
    return {
      'settings.get': () => this.model.view(),
      'settings.save': (p) => this.model.save(p as never),
      'settings.models': (p) => this.model.models(p as never),
      'settings.test': (p) => this.model.test(p as never),
      'remote.hosts': () => this.hosts(),
      'remote.open': (p) => this.open(String((p as { target?: unknown })?.target ?? '')),
    };
  }

  /** Opens a target in a window of its own: its relay's URL (the same relay when already open). */
  async open(text: string, opts: { port?: number; progress?: (message: string) => void } = {}): Promise<Result<'remote.open'>> {
    const session = await this.session(text, opts.progress);
    const key = formatTarget(parseTarget(text));
    const entry = this.opened.get(key)!;
    entry.relay ??= await startRelay(session, { staticDir: this.ctx.rendererDir, port: opts.port, answers: this.answers() });
    return { url: entry.relay.url };
  }

  /** Lets go of every session and relay; the hosts there keep running their turns. */
  async close(): Promise<void> {
    for (const { session, relay } of this.opened.values()) {
      await relay?.close().catch(() => undefined);
      await session.close().catch(() => undefined);
    }
    this.opened.clear();
  }
}
