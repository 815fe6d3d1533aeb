// "Open in your editor": the person's own editor on a workspace file, at a line when one is
// known. Tried in order: $VISUAL, $EDITOR (GUI editors; a terminal one would have no terminal
// here), VS Code and Zed when on PATH, then the OS's default application. Spawned without a
// shell, detached, its output ignored: it is the person's program, not the repository's.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { onPath } from '../shell/onPath';

export interface EditorCommand {
  command: string;
  args: string[];
}

/** Editors that run in a terminal: no use from a window with none. */
const TERMINAL_EDITORS = new Set(['vi', 'vim', 'nvim', 'nano', 'emacs', 'pico', 'ed', 'micro', 'helix', 'hx', 'joe', 'kak']);

/** How to open `abs` (at `line`) here; the first that applies wins. */
export function editorCommand(abs: string, line: number | undefined, env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): EditorCommand {
  const at = line ? `${abs}:${line}` : abs;
  for (const v of [env.VISUAL, env.EDITOR]) {
    const words = v?.trim().split(/\s+/) ?? [];
    if (!words.length || !words[0] || TERMINAL_EDITORS.has(path.basename(words[0]))) continue;
    const name = path.basename(words[0]);
    const args = name === 'code' || name === 'codium' ? ['-g', at] : name === 'zed' || name === 'subl' ? [at] : [abs];
    return { command: words[0], args: [...words.slice(1), ...args] };
  }
  const code = onPath('code', env, platform);
  if (code) return { command: code, args: ['-g', at] };
  const zed = onPath('zed', env, platform);
  if (zed) return { command: zed, args: [at] };
  if (platform === 'darwin') return { command: 'open', args: [abs] };
  if (platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""', abs] };
  return { command: 'xdg-open', args: [abs] };
}

/** Starts the editor and lets it go; resolves once it has started, rejects when it cannot. */
export function openInEditor(abs: string, line: number | undefined, env: NodeJS.ProcessEnv = process.env): Promise<EditorCommand> {
  const cmd = editorCommand(abs, line, env);
  return new Promise((resolve, reject) => {
    const child = spawn(cmd.command, cmd.args, { detached: true, stdio: 'ignore', env });
    child.once('error', (err) => reject(new Error(`Could not start ${cmd.command}: ${err.message}`)));
    child.once('spawn', () => {
      child.unref();
      resolve(cmd);
    });
  });
}
