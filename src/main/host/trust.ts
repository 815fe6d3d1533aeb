// The open folder's workspace trust as the app and the browser see it: asked once per config
// content (the trust-prompt), re-evaluated whenever `.loupe/config.json` changes on disk.
import type { TrustView } from '../../shared/contract';
import { InvalidArgumentError } from '../errors';
import { readTrustState, trustCurrentConfig, type TrustState } from '../services/permissions/trust';
import type { UserSettings } from '../services/settings/userSettings';

export class TrustHost {
  /** Folder → the config digest the person declined while this host runs. */
  private readonly declined = new Map<string, string>();

  /** `settings`: the host's one reader and writer of the user's settings.json. */
  constructor(private readonly settings: UserSettings) {}

  private view(s: TrustState): TrustView {
    return {
      root: s.root,
      digest: s.digest,
      trusted: s.trusted,
      needed: s.needed,
      declined: s.digest !== null && this.declined.get(s.root) === s.digest,
      allow: s.grants.allow.map((r) => ({ kind: r.kind, pattern: r.pattern })),
      tests: s.grants.tests.map((t) => ({ ...t })),
      ...(s.grants.servers.length ? { servers: s.grants.servers.map((t) => ({ language: t.language, command: [...t.command] })) } : {}),
      mcp_servers: s.grants.mcp.map((m) => ({ ...m })),
      ...(s.grants.hooks.length ? { hooks: s.grants.hooks.map((h) => ({ ...h })) } : {}),
      ...(s.grants.agents.length ? { agents: s.grants.agents.map((a) => ({ ...a })) } : {}),
    };
  }

  async get(root: string): Promise<TrustView> {
    return this.view(await readTrustState(root, this.settings));
  }

  async accept(root: string, digest: unknown): Promise<TrustView> {
    if (typeof digest !== 'string') throw new InvalidArgumentError('digest must be the sha256 the trust prompt showed');
    // Only what the person saw: a config rewritten since the prompt is asked about again.
    const state = await trustCurrentConfig(root, this.settings, digest);
    if (state.trusted) this.declined.delete(state.root);
    return this.view(state);
  }

  async decline(root: string, digest: unknown): Promise<TrustView> {
    if (typeof digest !== 'string') throw new InvalidArgumentError('digest must be the sha256 the trust prompt showed');
    const state = await readTrustState(root, this.settings);
    this.declined.set(state.root, digest);
    return this.view(state);
  }
}
