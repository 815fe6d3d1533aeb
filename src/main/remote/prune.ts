// Removing older versions of the remote host (docs/architecture.md, "Remote workspaces"). The
// newest host looks at its siblings in ~/.loupe-server: a folder of an older version goes when no
// host of it answers, or when its host agrees to stop because nothing runs there and no window
// is attached. A host that is busy — a turn, a command, a terminal, a window — is left alone and
// asked again later. Unfinished uploads (`.tmp-*`) older than an hour go too. Removal renames
// first, so a half-removed folder is never taken for an installed one.
import { randomBytes } from 'node:crypto';
import { readdir, rename, rm, stat } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { answers, type DaemonReply } from './daemon';
import { compareVersions, readManifest, socketPath } from './layout';

const STALE_UPLOAD_MS = 60 * 60_000;

export interface PruneResult {
  removed: string[];
  kept: { version: string; why: string }[];
}

/** Asks the host on `socket` to stop if it is idle; true when it stopped (or nothing answered). */
export async function stopIfIdle(socket: string, timeoutMs = 10_000): Promise<boolean> {
  if (!(await answers(socket))) return true;
  const reply = await new Promise<DaemonReply | null>((resolve) => {
    const s = net.connect(socket);
    let buf = '';
    const timer = setTimeout(() => {
      s.destroy();
      resolve(null);
    }, timeoutMs);
    s.on('data', (d) => {
      buf += d.toString();
      const nl = buf.indexOf('\n');
      if (nl === -1) return;
      clearTimeout(timer);
      s.destroy();
      try {
        resolve(JSON.parse(buf.slice(0, nl)) as DaemonReply);
      } catch {
        resolve(null);
      }
    });
    s.on('error', () => {
      clearTimeout(timer);
      resolve(null);
    });
    s.write(`${JSON.stringify({ t: 'shutdown', if_idle: true })}\n`);
  });
  if (reply?.t !== 'shutdown' || !reply.stopping) return false;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!(await answers(socket, 1000))) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

async function removeFolder(root: string, name: string): Promise<void> {
  const trash = path.join(root, `.trash-${name}-${randomBytes(4).toString('hex')}`);
  await rename(path.join(root, name), trash);
  await rm(trash, { recursive: true, force: true });
}

/** Prunes the versions older than `version` beside `bundleDir`. */
export async function pruneOlder(bundleDir: string, version: string): Promise<PruneResult> {
  const root = path.dirname(bundleDir);
  const out: PruneResult = { removed: [], kept: [] };
  let names: string[];
  try {
    names = await readdir(root);
  } catch {
    return out;
  }
  for (const name of names) {
    const dir = path.join(root, name);
    if (dir === bundleDir) continue;
    try {
      if (name.startsWith('.trash-')) {
        await rm(dir, { recursive: true, force: true });
        continue;
      }
      if (name.startsWith('.tmp-')) {
        if (Date.now() - (await stat(dir)).mtimeMs > STALE_UPLOAD_MS) await rm(dir, { recursive: true, force: true });
        continue;
      }
      const m = readManifest(dir);
      if (!m || compareVersions(m.version, version) >= 0) continue;
      if (!(await stopIfIdle(socketPath(dir)))) {
        out.kept.push({ version: m.version, why: 'its host is busy (a window, a turn, a command or a terminal)' });
        continue;
      }
      await removeFolder(root, name);
      out.removed.push(m.version);
    } catch (err) {
      out.kept.push({ version: name, why: (err as Error).message });
    }
  }
  return out;
}
