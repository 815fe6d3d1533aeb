// `rg --files` as the file index runs it: the same arguments for the whole walk, one folder,
// or a few folders, so .gitignore, .ignore and global git excludes decide the same everywhere.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { rgPath } from '@vscode/ripgrep';
import { AbortedError } from '../../errors';

const RG_ARGS = ['--files', '--hidden', '--null', '--no-config', '--no-messages', '--glob', '!.git', '--glob', '!.loupe'];

export function listFilesWithRg(root: string, signal?: AbortSignal): Promise<string[]> {
  const out: string[] = [];
  return streamFilesWithRg(root, (batch) => void out.push(...batch), signal).then(() => out);
}

/**
 * Streams `rg --files` in batches of whole paths, so a million-file tree is never one
 * buffer or one string; `onBatch` runs between reads, which lets the event loop breathe.
 * Resolves with rg's exit code: 2 when some folder could not be read (the rest is listed).
 */
export function streamFilesWithRg(
  root: string,
  onBatch: (files: string[]) => void,
  signal?: AbortSignal,
  extraArgs: string[] = [],
  onStderr?: (text: string) => void,
): Promise<number> {
  return new Promise((resolve, reject) => {
    // --no-config: a user's RIPGREP_CONFIG_PATH must not change what we list.
    const child = spawn(rgPath, [...RG_ARGS, ...extraArgs], { cwd: root, stdio: ['ignore', 'pipe', onStderr ? 'pipe' : 'ignore'], signal });
    if (onStderr) {
      child.stderr!.setEncoding('utf8');
      child.stderr!.on('data', onStderr);
    }
    let rest = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      const text = rest + chunk;
      const cut = text.lastIndexOf('\0');
      if (cut < 0) return void (rest = text);
      rest = text.slice(cut + 1);
      const files = text.slice(0, cut).split('\0');
      onBatch(path.sep === '/' ? files : files.map((f) => f.split(path.sep).join('/')));
    });
    child.on('error', (err) => reject(signal?.aborted ? new AbortedError('Listing files') : err));
    child.on('close', (code) => {
      if (signal?.aborted) return reject(new AbortedError('Listing files'));
      // rg exits 1 when there is nothing to list, 2 on partial errors: both still list.
      if (code !== 0 && code !== 1 && code !== 2) return reject(new Error(`rg --files exited with ${code}`));
      if (rest) onBatch([rest]);
      resolve(code);
    });
  });
}

