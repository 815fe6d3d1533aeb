// "Open in your editor": the person's own editor on a workspace file, at a line when one is
// known. Tried in order: $VISUAL, $EDITOR (GUI editors; a terminal one would have no terminal
// here), VS Code and Zed when on PATH, then the OS's default application. Spawned without a
// shell, detached (its stderr read only to say why it failed): it is the person's program, not
// the repository's.
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

/**
 * Why nothing the OS would pick can show a window here: on Linux and the BSDs the system
 * default needs a display (`DISPLAY` or `WAYLAND_DISPLAY`); a headless machine running
 * `loupe serve` has none, and `xdg-open` then fails or opens nothing anyone sees.
 */
export function noDisplay(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string | null {
  if (platform === 'darwin' || platform === 'win32') return null;
  return env.DISPLAY || env.WAYLAND_DISPLAY ? null : 'no display is set (DISPLAY, WAYLAND_DISPLAY) where Loupe runs';
}

export type EditorLaunch = { opened: true; command: EditorCommand } | { opened: false; reason: string };

/** How long an editor may take to fail at once (a launcher that finds nothing exits within it). */
const EARLY_EXIT_MS = 1500;

/**
 * Starts the editor and lets it go. Says whether it opened: a launcher that exits non-zero at
 * once (`xdg-open` with nothing to open it, an editor that cannot start) did not, and its own
 * last words say why; one still running, or done with status 0 (`code -g` hands the file to a
 * running window), did. Only the OS default is held back when no display can show it; $VISUAL,
 * $EDITOR, code and zed may reach a window without one (VS Code's remote CLI does).
 */
export function openInEditor(abs: string, line: number | undefined, env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): Promise<EditorLaunch> {
  const cmd = editorCommand(abs, line, env, platform);
  const headless = noDisplay(env, platform);
  if (headless && cmd.command === 'xdg-open') return Promise.resolve({ opened: false, reason: `no editor was found ($VISUAL, $EDITOR, code, zed) and ${headless}` });
  return new Promise((resolve) => {
    const name = path.basename(cmd.command);
    const child = spawn(cmd.command, cmd.args, { detached: true, stdio: ['ignore', 'ignore', 'pipe'], env });
    let said = '';
    child.stderr?.on('data', (d: Buffer) => (said = (said + d.toString()).slice(-2000)));
    let settled = false;
    const done = (r: EditorLaunch) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.stderr?.destroy();
      child.unref();
      resolve(r);
    };
    const timer = setTimeout(() => done({ opened: true, command: cmd }), EARLY_EXIT_MS);
    child.once('error', (err) => done({ opened: false, reason: `${name} could not start: ${err.message}` }));
    child.once('exit', (code, signal) => {
      if (code === 0) return done({ opened: true, command: cmd });
      const last = said.trim().split('\n').pop()?.trim();
      done({ opened: false, reason: `${name} exited with ${code ?? signal}${last ? `: ${last}` : ''}` });
    });
  });
}
