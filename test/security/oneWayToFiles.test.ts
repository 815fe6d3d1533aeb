// Files of a workspace are opened, written, renamed and removed only through services/files
// (safeOpen, safeWrite): folders held without following links, FIFOs refused without
// blocking. A module that imports node:fs's opening or writing calls itself bypasses that, so
// each one that may is listed here with the reason its paths are not a workspace's.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(__dirname, '../../src/main');

const ALLOWED: Record<string, string> = {
  'services/files/safeOpen.ts': 'the one way in',
  'services/files/safeWrite.ts': 'the one way in',
  'services/settings/atomicJson.ts': "the user's config folder, not a workspace",
  'services/settings/userSettings.ts': "the user's config folder, not a workspace",
  'services/hooks/claudeUserSettings.ts': "the person's own ~/.claude/settings.json, not a workspace",
  'host/llmSettings.ts': "the user's config folder, not a workspace",
  'services/log/fileLogger.ts': "the user's log in the config folder, not a workspace",
  'services/process/processTable.ts': '/proc',
  'services/shell/processReaper.ts': '/proc',
  'cli/serve/staticFiles.ts': "the app's own bundle",
  'cli/serve/bootPage.ts': "the app's own index.html",
  'cli/exportCommand.ts': '`loupe import FILE` reads the export the person names on its command line, as any command-line tool reads its argument',
  'services/pty/spawnHelper.ts': "node-pty's helper binary in the app's own modules",
  'services/modlog/merge3.ts': 'a private mkdtemp folder',
  'services/modlog/facts.ts': 'a private mkdtemp folder',
  'services/shell/outputCapture.ts': 'opens its log only at a path from holdDir',
  'services/shell/outputPrune.ts': 'removes logs only at paths from holdDir',
  'services/shell/commandRunner.ts': "removes the sandbox's private mkdtemp folder",
  'services/sandbox/launch.ts': "removes the sandbox's private mkdtemp folder",
  'services/sandbox/net/sandboxNet.ts': 'writes the network bridge into its own private mkdtemp folder and removes it',
  'services/processes/listeningPorts.ts': '/proc',
  'services/processes/outputLog.ts': 'opens its log only at a path from holdDir',
  'services/lsp/serverProcess.ts': "/proc, and removes the server sandbox's private mkdtemp folder",
  'services/modlog/logLock.ts': '/proc (a lock holder’s start time)',
  'services/workspace/changeJournal.ts': "/proc (the kernel's inotify queue length)",
  'services/hostedAgents/hostedAgents.ts': "makes a hosted agent's own state folder under Loupe's config folder, never a workspace",
  'remote/bundle.ts': "assembles Loupe's own host bundle in its cache under the config folder",
  'remote/install.ts': "streams Loupe's own bundle files to the remote machine",
  'remote/layout.ts': "reads a bundle's manifest in Loupe's own server folder (~/.loupe-server)",
  'remote/daemon.ts': "makes and replaces Loupe's own server folder and socket (~/.loupe-server), never a workspace",
  'remote/prune.ts': "removes old versions in Loupe's own server folder (~/.loupe-server), never a workspace",
  'remote/serverCommand.ts': "makes Loupe's own version folder and its host.log (~/.loupe-server)",
  'remote/ssh.ts': "makes the folder of ssh's shared connections (Loupe's config folder, or the person's own in the temp folder, checked)",
  'remote/sshConfig.ts': "reads the person's ~/.ssh/config for the hosts to offer",
  'remote/tunnel.ts': "the container side of Loupe's tunnel makes its own sockets, never in a workspace",
  'services/worktrees/worktrees.ts': "makes Loupe's worktrees folder, beside the repository and outside every workspace",
  'services/worktrees/prepare.ts': 'makes a link only at a path from holdDir in a new worktree',
  'services/worktrees/spare.ts': "removes the spare checkout, or a half-made one, only as a direct child of Loupe's worktrees folder (never a workspace)",
  // Known gap: it reads a worktree's `.git` file and makes missing .git/hooks, .git/info and
  // .loupe by name before binding them read-only; moving this onto safeOpen is open work.
  'services/sandbox/bwrapPolicy.ts': 'creates empty protected folders before the sandbox binds them read-only',
};

/** node:fs calls that open, create, change or remove a file by name. */
const OPENING = /^(open|readFile|writeFile|appendFile|createReadStream|createWriteStream|rename|mkdir|rm|rmdir|unlink|copyFile|cp|truncate|symlink|link|chmod|chown|utimes|opendir)(Sync)?$/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const abs = path.join(dir, e.name);
    if (e.isDirectory()) return sources(abs);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [abs] : [];
  });
}

function openingImports(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/import\s+(type\s+)?([^;]*?)\s+from\s+'(?:node:)?fs(?:\/promises)?'/g)) {
    if (m[1]) continue;
    const clause = m[2];
    if (/^\s*(\*\s+as\s+\w+|\w+)\s*(,|$)/.test(clause)) found.push('(the whole module)');
    const named = /\{([^}]*)\}/.exec(clause)?.[1] ?? '';
    for (const part of named.split(',')) {
      const name = part.trim().replace(/^type\s+/, '').split(/\s+as\s+/)[0];
      if (OPENING.test(name) && !part.trim().startsWith('type ')) found.push(name);
    }
  }
  return found;
}

describe('one way to workspace files', () => {
  it('no module outside services/files opens or writes files by name, except those listed with a reason', () => {
    const offenders = sources(SRC)
      .map((abs) => ({ rel: path.relative(SRC, abs).split(path.sep).join('/'), calls: openingImports(readFileSync(abs, 'utf8')) }))
      .filter((f) => f.calls.length && !(f.rel in ALLOWED))
      .map((f) => `${f.rel}: ${f.calls.join(', ')}`);
    expect(offenders).toEqual([]);
  });
});
