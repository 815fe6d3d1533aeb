// The workspace's file list, from `rg --files` so .gitignore, .ignore and global git
// excludes are honoured exactly as the search tools will honour them.
import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { rgPath } from '@vscode/ripgrep';
import type { TreeEntry } from '../../../shared/contract';
import { AbortedError } from '../../errors';

type Children = Map<string, 'file' | 'dir'>;

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

export function listFilesWithRg(root: string, signal?: AbortSignal): Promise<string[]> {
  return new Promise((resolve, reject) => {
    // --no-config: a user's RIPGREP_CONFIG_PATH must not change what we list.
    const child = spawn(
      rgPath,
      ['--files', '--hidden', '--null', '--no-config', '--no-messages', '--glob', '!.git', '--glob', '!.loupe'],
      { cwd: root, stdio: ['ignore', 'pipe', 'ignore'], signal },
    );
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.on('error', (err) => reject(signal?.aborted ? new AbortedError('Listing files') : err));
    child.on('close', (code) => {
      // rg exits 1 when there is nothing to list, 2 on partial errors: both still list.
      if (code !== 0 && code !== 1 && code !== 2) return reject(new Error(`rg --files exited with ${code}`));
      const out = Buffer.concat(chunks).toString('utf8');
      resolve(out.split('\0').filter(Boolean).map((f) => f.split(path.sep).join('/')));
    });
  });
}

export function buildChildren(files: string[]): Map<string, Children> {
  const dirs = new Map<string, Children>([['', new Map()]]);
  const childrenOf = (dir: string): Children => {
    let c = dirs.get(dir);
    if (!c) dirs.set(dir, (c = new Map()));
    return c;
  };
  for (const file of files) {
    let parent = '';
    const segments = file.split('/');
    for (let i = 0; i < segments.length; i++) {
      const name = segments[i];
      const isFile = i === segments.length - 1;
      const children = childrenOf(parent);
      if (isFile) children.set(name, 'file');
      else if (children.get(name) !== 'dir') children.set(name, 'dir');
      parent = parent ? `${parent}/${name}` : name;
    }
  }
  return dirs;
}

function signature(children: Children | undefined): string {
  if (!children) return '';
  return [...children].map(([n, k]) => `${k[0]}${n}`).sort().join('\0');
}

export function sortEntries(entries: TreeEntry[]): TreeEntry[] {
  return entries.sort((a, b) => (a.kind === b.kind ? collator.compare(a.name, b.name) : a.kind === 'dir' ? -1 : 1));
}

export class FileIndex {
  private dirs = new Map<string, Children>();
  private loaded: Promise<void> | null = null;
  /** Sorted listings already handed out; any refresh may change them, so it clears them all. */
  private listings = new Map<string, Promise<TreeEntry[]>>();

  constructor(private readonly root: string) {}

  /** Re-lists the workspace; returns the directories whose listing changed. */
  async refresh(signal?: AbortSignal): Promise<string[]> {
    const next = buildChildren(await listFilesWithRg(this.root, signal));
    const changed: string[] = [];
    for (const dir of new Set([...this.dirs.keys(), ...next.keys()])) {
      if (signature(this.dirs.get(dir)) !== signature(next.get(dir))) changed.push(dir);
    }
    this.dirs = next;
    this.listings.clear();
    this.loaded = Promise.resolve();
    return changed;
  }

  get fileCount(): number {
    let n = 0;
    for (const children of this.dirs.values()) for (const kind of children.values()) if (kind === 'file') n++;
    return n;
  }

  async list(dir: string): Promise<TreeEntry[]> {
    this.loaded ??= this.refresh().then(() => undefined);
    await this.loaded;
    let listing = this.listings.get(dir);
    if (!listing) {
      listing = this.compute(dir);
      this.listings.set(dir, listing);
    }
    return listing;
  }

  private async compute(dir: string): Promise<TreeEntry[]> {
    const prefix = dir ? `${dir}/` : '';
    const entries: TreeEntry[] = [...(this.dirs.get(dir) ?? [])].map(([name, kind]) => ({
      path: prefix + name,
      name,
      kind,
    }));
    // rg lists files only; an empty folder the user just made should still show.
    const known = new Set(entries.map((e) => e.name));
    try {
      for (const d of await readdir(path.join(this.root, dir), { withFileTypes: true })) {
        if (!d.isDirectory() || known.has(d.name) || d.name === '.git' || d.name === '.loupe') continue;
        if ((await readdir(path.join(this.root, dir, d.name))).length === 0) {
          entries.push({ path: prefix + d.name, name: d.name, kind: 'dir' });
        }
      }
    } catch {
      // The folder vanished between listing and reading: the rg view stands.
    }
    return sortEntries(entries);
  }
}
