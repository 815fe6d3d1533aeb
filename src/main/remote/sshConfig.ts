// The hosts of the person's ssh config, for Open Remote Folder: each `Host` alias that names one
// host (no `*`, `?` or `!`), with its HostName, User and Port for people. `Include` is followed
// (globs in the last part, relative to ~/.ssh, five levels at most). Only a list to pick from:
// ssh itself reads the config when it connects.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface SshConfigHost {
  alias: string;
  hostName?: string;
  user?: string;
  port?: string;
}

const MAX_DEPTH = 5;
const MAX_BYTES = 1024 * 1024;

function expand(p: string, home: string, base: string): string {
  const t = p.replace(/^~(?=\/|$)/, home);
  return path.isAbsolute(t) ? t : path.join(base, t);
}

function globFiles(pattern: string): string[] {
  if (!/[*?]/.test(path.basename(pattern))) return existsSync(pattern) ? [pattern] : [];
  const dir = path.dirname(pattern);
  const re = new RegExp(`^${path.basename(pattern).replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
  try {
    return readdirSync(dir)
      .filter((n) => re.test(n))
      .sort()
      .map((n) => path.join(dir, n));
  } catch {
    return [];
  }
}

function read(file: string, home: string, depth: number, out: Map<string, SshConfigHost>, seen: Set<string>): void {
  if (depth > MAX_DEPTH || seen.has(file)) return;
  seen.add(file);
  let text: string;
  try {
    if (!statSync(file).isFile() || statSync(file).size > MAX_BYTES) return;
    text = readFileSync(file, 'utf8');
  } catch {
    return;
  }
  let current: SshConfigHost[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const m = /^(\S+?)(?:\s*=\s*|\s+)(.*)$/.exec(line);
    if (!m) continue;
    const key = m[1].toLowerCase();
    const value = m[2].trim().replace(/^"(.*)"$/, '$1');
    if (key === 'include') {
      for (const word of value.split(/\s+/)) for (const f of globFiles(expand(word, home, path.join(home, '.ssh')))) read(f, home, depth + 1, out, seen);
      continue;
    }
    if (key === 'match') {
      current = [];
      continue;
    }
    if (key === 'host') {
      current = value
        .split(/\s+/)
        .filter((a) => a && !/[*?!]/.test(a))
        .map((alias) => {
          const h = out.get(alias) ?? { alias };
          out.set(alias, h);
          return h;
        });
      continue;
    }
    // ssh takes the first value it finds for each key.
    for (const h of current) {
      if (key === 'hostname') h.hostName ??= value;
      else if (key === 'user') h.user ??= value;
      else if (key === 'port') h.port ??= value;
    }
  }
}

/** The hosts named in `file` (default ~/.ssh/config), in the order they appear. */
export function sshConfigHosts(file?: string, home: string = os.homedir()): SshConfigHost[] {
  const out = new Map<string, SshConfigHost>();
  read(file ?? path.join(home, '.ssh', 'config'), home, 0, out, new Set());
  return [...out.values()];
}

/** The config file an `ssh_args` setting names with `-F`, if any. */
export function configFileOf(args: readonly string[] | undefined, home: string = os.homedir()): string | undefined {
  if (!args) return undefined;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '-F' && args[i + 1]) return expand(args[i + 1], home, process.cwd());
    if (args[i].startsWith('-F') && args[i].length > 2) return expand(args[i].slice(2), home, process.cwd());
  }
  return undefined;
}
