// A real workspace (temp folder, optionally a git repo) with the real tool registry on it.
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createToolContext } from '../../src/main/agent/tools/context';
import { createToolRegistry } from '../../src/main/agent/tools/registry';
import type { ToolContext, ToolResult } from '../../src/main/agent/tools/types';
import type { EditCorrector } from '../../src/main/agent/edit/corrector';
import type { Logger } from '../../src/main/services/log/logger';
import { testServices } from './services';
import { trustCurrentConfig } from '../../src/main/services/permissions/trust';
import { UserSettings } from '../../src/main/services/settings/userSettings';
import { git, tempDir } from './tmp';
import { writeUserSettings } from './userSettings';

export interface Harness {
  /** A sandbox folder holding the workspace, so writes that escape it can be seen. */
  sandbox: string;
  root: string;
  ctx: ToolContext;
  /** A tool call; `signal` stops it as the person's Stop would. */
  call(tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolResult>;
  write(rel: string, content: string | Buffer): Promise<void>;
  read(rel: string): Promise<string>;
  link(rel: string, target: string): Promise<void>;
  /** Trusts the workspace with its .loupe/config.json as it is now, as `loupe trust` does. */
  trust(): Promise<void>;
  cleanup(): Promise<void>;
}

export interface HarnessOptions {
  git?: boolean;
  corrector?: EditCorrector | null;
  logger?: Logger;
  /**
   * The user's "sandbox" setting. Tests about the questions a command asks without a sandbox
   * set "off"; unset, the default applies (commands run inside the sandbox where one works).
   */
  sandbox?: 'auto' | 'off';
  /** Language servers may start (off unless asked for). */
  lsp?: boolean;
}

export async function harness(opts: HarnessOptions = {}): Promise<Harness> {
  const { dir: sandbox, cleanup } = await tempDir('loupe-tools-');
  const root = path.join(sandbox, 'ws');
  await mkdir(root);
  if (opts.git) git(root, 'init', '-q');
  // The user's settings (and the trust kept there) live in the sandbox, never in the real home.
  const userDir = path.join(sandbox, 'user');
  const previousHome = process.env.LOUPE_HOME;
  process.env.LOUPE_HOME = userDir;
  if (opts.sandbox) writeUserSettings(userDir, { sandbox: opts.sandbox });
  const services = testServices(root, { configDir: userDir, logger: opts.logger, lsp: opts.lsp });
  const ctx = createToolContext(services, { corrector: opts.corrector ?? null });
  const registry = createToolRegistry();
  return {
    sandbox,
    root,
    ctx,
    call: (tool, args, signal) => registry.call(tool, args, signal ? { ...ctx, signal } : ctx),
    async write(rel, content) {
      const abs = path.join(root, rel);
      await mkdir(path.dirname(abs), { recursive: true });
      await writeFile(abs, content);
    },
    read: (rel) => readFile(path.join(root, rel), 'utf8'),
    async link(rel, target) {
      const abs = path.join(root, rel);
      await mkdir(path.dirname(abs), { recursive: true });
      await symlink(target, abs);
    },
    trust: async () => void (await trustCurrentConfig(root, new UserSettings(userDir))),
    async cleanup() {
      await services.lsp.dispose();
      if (process.env.LOUPE_HOME === userDir) {
        if (previousHome === undefined) delete process.env.LOUPE_HOME;
        else process.env.LOUPE_HOME = previousHome;
      }
      await cleanup();
    },
  };
}
